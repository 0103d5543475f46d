"""Helper process for the espeak engine: one fresh fork of an initialized espeak per utterance.

Why: libespeak-ng keeps state between utterances (e.g. a static index in its wave generator),
so in one process the same text can give different samples depending on what came before,
and re-initializing does not reset it. Forking a child from a freshly initialized, never-used
state for every utterance makes output depend on the text alone. This process is
single-threaded (espeak runs in AUDIO_OUTPUT_SYNCHRONOUS mode, which starts no threads), so
fork() here is safe; forking the multi-threaded host process would not be.

Protocol on stdin/stdout, all integers big-endian:
  request:  u32 length, then that many bytes. The first request is a JSON config
            {"voice": str, "rate": int, "pitch": int}; every later one is UTF-8 text.
  response: u8 status, u32 length, payload. Status 0: payload is the reply (u32 sample rate
            for the config, little-endian int16 PCM for text); status 1: a one-line error.
The process exits when stdin reaches EOF, i.e. when the host closes the pipe or dies.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import struct
import sys
import traceback
from typing import Any

import espeakng_loader

# Constants from espeak-ng's speak_lib.h.
AUDIO_OUTPUT_SYNCHRONOUS = 2
INITIALIZE_DONT_EXIT = 0x8000  # return an error instead of calling exit()
POS_CHARACTER = 1
CHARS_UTF8 = 1
ENDPAUSE = 0x1000  # trailing sentence pause, as the espeak-ng command line adds
PARAM_RATE = 1
PARAM_PITCH = 3
EE_OK = 0

_HEADER = struct.Struct(">BI")
_LENGTH = struct.Struct(">I")

_SynthCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)


class WorkerError(Exception):
    """A failure reported to the host as a one-line error frame."""


def _read_exact(fd: int, n: int) -> bytes | None:
    """Read exactly n bytes, or return None at a clean EOF before the first byte."""
    chunks: list[bytes] = []
    got = 0
    while got < n:
        chunk = os.read(fd, n - got)
        if not chunk:
            if got == 0:
                return None
            raise EOFError("truncated frame")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _send(fd: int, status: int, payload: bytes) -> None:
    _write_all(fd, _HEADER.pack(status, len(payload)) + payload)


def _read_request(fd: int) -> bytes | None:
    header = _read_exact(fd, _LENGTH.size)
    if header is None:
        return None
    (length,) = _LENGTH.unpack(header)
    if length == 0:
        return b""
    body = _read_exact(fd, length)
    if body is None:
        raise EOFError("truncated frame")
    return body


def _init_espeak(config: dict[str, Any]) -> tuple[ctypes.CDLL, int]:
    """Load and configure espeak once; children inherit this state untouched."""
    try:
        lib = ctypes.CDLL(espeakng_loader.get_library_path())
    except OSError as exc:
        raise WorkerError(f"cannot load libespeak-ng: {exc}") from exc
    lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
    lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.espeak_SetSynthCallback.argtypes = [_SynthCallback]
    lib.espeak_Synth.argtypes = [
        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int,
        ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p,
    ]  # fmt: skip

    data_path = espeakng_loader.get_data_path().encode()
    rate = lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, data_path, INITIALIZE_DONT_EXIT)
    if rate <= 0:
        raise WorkerError(f"espeak-ng failed to initialize with data at {data_path.decode()}")
    voice = str(config["voice"])
    if lib.espeak_SetVoiceByName(voice.encode()) != EE_OK:
        raise WorkerError(f"espeak-ng has no voice named {voice!r}")
    for param, key in ((PARAM_RATE, "rate"), (PARAM_PITCH, "pitch")):
        if lib.espeak_SetParameter(param, int(config[key]), 0) != EE_OK:
            raise WorkerError(f"espeak-ng rejected {key}={config[key]!r}")
    return lib, rate


def _synthesize_in_child(lib: ctypes.CDLL, text: bytes, out_fd: int) -> None:
    """Runs in the forked child: render text, write raw PCM to out_fd."""
    pcm = bytearray()

    def collect(wav: ctypes._Pointer[ctypes.c_short], count: int, _events: int) -> int:
        if count > 0:
            pcm.extend(ctypes.string_at(wav, count * 2))
        return 0  # 0 = keep going

    callback = _SynthCallback(collect)
    lib.espeak_SetSynthCallback(callback)
    # espeak reads a NUL-terminated string, so embedded NULs would cut the text short.
    buffer = ctypes.create_string_buffer(text.replace(b"\0", b" "))
    status = lib.espeak_Synth(buffer, len(buffer), 0, POS_CHARACTER, 0, CHARS_UTF8 | ENDPAUSE, None, None)
    if status != EE_OK or lib.espeak_Synchronize() != EE_OK:
        raise WorkerError(f"espeak_Synth failed with status {status}")
    _write_all(out_fd, bytes(pcm))  # little-endian int16 on every platform espeak-ng wheels ship


def _render(lib: ctypes.CDLL, text: bytes) -> bytes:
    """Fork a child for one utterance and collect its PCM through a private pipe.

    The child writes to its own pipe rather than stdout, so a crash mid-write can never
    leave a torn frame on the protocol stream.
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        code = 0
        try:
            _synthesize_in_child(lib, text, write_fd)
        except BaseException:  # noqa: BLE001 - the child must report any failure, then exit
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)  # skip atexit/finalizers inherited from the parent
    os.close(write_fd)
    chunks: list[bytes] = []
    while chunk := os.read(read_fd, 1 << 16):
        chunks.append(chunk)
    os.close(read_fd)
    _, wait_status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(wait_status)
    if code != 0:
        raise WorkerError(f"espeak synthesis child exited with status {code}")
    return b"".join(chunks)


def main() -> None:
    # Ctrl-C in the terminal reaches this process group too; the host decides when we stop
    # (by closing stdin), so don't die with a traceback on SIGINT.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    in_fd, out_fd = sys.stdin.fileno(), sys.stdout.fileno()
    config_frame = _read_request(in_fd)
    if config_frame is None:
        return
    try:
        lib, rate = _init_espeak(json.loads(config_frame))
    except (WorkerError, KeyError, ValueError, TypeError) as exc:
        _send(out_fd, 1, str(exc).encode())
        return
    _send(out_fd, 0, _LENGTH.pack(rate))
    while (request := _read_request(in_fd)) is not None:
        try:
            _send(out_fd, 0, _render(lib, request))
        except WorkerError as exc:
            _send(out_fd, 1, str(exc).encode())


if __name__ == "__main__":
    # The host went away (closed pipe): nothing is left to answer.
    with contextlib.suppress(BrokenPipeError, EOFError):
        main()

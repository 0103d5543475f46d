"""Segment WAVs: write them with a self-certifying checksum, and check them before trusting them."""

from __future__ import annotations

import hashlib
import io
import os
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

# Each WAV carries the SHA-256 of its own PCM in its INFO comment, so a file can prove it is whole
# even when the catalog that recorded it has been rebuilt (FACTS: an edited book loses the old catalog).
_CERTIFICATE_PREFIX = "narrator-pcm-sha256="
SUBTYPE = "PCM_16"
SILENCE_PEAK = 0.005
#: Speech between these rates (characters per second) is plausible for any engine at any speed.
MIN_CHARS_PER_SECOND = 2.0
MAX_CHARS_PER_SECOND = 60.0


class AudioCheckError(Exception):
    """A WAV is damaged or implausible; the message says why."""


@dataclass(frozen=True)
class WavRecord:
    """What the catalog records about a published WAV."""

    frames: int
    sample_rate: int
    sha256: str

    @property
    def seconds(self) -> float:
        return self.frames / self.sample_rate


def to_pcm16(samples: np.ndarray) -> np.ndarray:
    """Float samples in [-1, 1] to int16, rejecting NaN or infinite values."""
    samples = np.asarray(samples, dtype=np.float32).reshape(-1)
    if not np.all(np.isfinite(samples)):
        raise AudioCheckError("the engine returned NaN or infinite samples")
    return np.round(np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2")


def _pcm_sha256(pcm: np.ndarray) -> str:
    return hashlib.sha256(pcm.astype("<i2").tobytes()).hexdigest()


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """A complete mono 16-bit WAV, in memory, certified with its PCM checksum."""
    pcm = to_pcm16(samples)
    buffer = io.BytesIO()
    with sf.SoundFile(buffer, "w", sample_rate, 1, SUBTYPE, format="WAV") as wav:
        wav.comment = _CERTIFICATE_PREFIX + _pcm_sha256(pcm)
        wav.write(pcm)
    return buffer.getvalue()


def write_durable(path: Path, data: bytes) -> None:
    """Write bytes and fsync them, so a later rename publishes complete data."""
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def replace_durably(path: Path, data: bytes) -> None:
    """Publish bytes at path atomically: temp file, fsync, rename, fsync the directory."""
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    write_durable(temp, data)
    os.replace(temp, path)
    fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    """Make a rename or unlink in this directory survive a power loss."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def decode_verified(
    data: bytes, *, text_chars: int, sample_rate: int | None = None
) -> tuple[WavRecord, np.ndarray]:
    """Decode a segment WAV, check it is whole and plausible speech for ``text_chars`` characters."""
    try:
        with sf.SoundFile(io.BytesIO(data)) as wav:
            comment = wav.comment or ""
            rate, channels = wav.samplerate, wav.channels
            pcm = wav.read(dtype="int16")
    except (sf.LibsndfileError, RuntimeError, TypeError):
        raise AudioCheckError("does not decode as a WAV") from None
    if channels != 1:
        raise AudioCheckError(f"has {channels} channels, expected mono")
    if sample_rate is not None and rate != sample_rate:
        raise AudioCheckError(f"has sample rate {rate} Hz, expected {sample_rate} Hz")
    if not comment.startswith(_CERTIFICATE_PREFIX) or comment[len(_CERTIFICATE_PREFIX) :] != _pcm_sha256(pcm):
        raise AudioCheckError("is truncated or altered (its PCM does not match its certificate)")
    if len(pcm) == 0:
        raise AudioCheckError("is empty")
    if np.abs(pcm.astype(np.int32)).max() < SILENCE_PEAK * 32767:
        raise AudioCheckError("is silent")
    seconds = len(pcm) / rate
    # Slack at both ends: a one-word segment may be short or padded with the engine's silence.
    if not text_chars / MAX_CHARS_PER_SECOND - 0.5 <= seconds <= text_chars / MIN_CHARS_PER_SECOND + 3.0:
        raise AudioCheckError(
            f"lasts {seconds:.2f} s for {text_chars} characters, which is not plausible speech"
        )
    return WavRecord(frames=len(pcm), sample_rate=rate, sha256=hashlib.sha256(data).hexdigest()), pcm


def check_wav_file(path: Path, *, text_chars: int, sample_rate: int | None = None) -> WavRecord:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise AudioCheckError("is missing") from None
    return decode_verified(data, text_chars=text_chars, sample_rate=sample_rate)[0]

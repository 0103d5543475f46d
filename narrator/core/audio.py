"""Segment WAVs: write them with a self-certifying checksum, and check them before trusting them."""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from narrator.core.errors import CatalogError

# Each WAV carries a certificate in its INFO comment: its segment id and the SHA-256 of that id and
# its PCM. So a file proves it is whole and that it belongs to that segment (whose id hashes the
# spoken text and the voice settings) even when the catalog that recorded it has been rebuilt, as
# it is after every book edit. A WAV copied over another segment's, or left from an older text,
# fails the check instead of being adopted.
_CERTIFICATE = re.compile(r"narrator-segment=(?P<segment>[^;]+);sha256=(?P<digest>[0-9a-f]{64})")
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


def pcm_bytes(pcm: np.ndarray) -> bytes:
    """Samples as a WAV's data chunk holds them (16-bit little-endian): what checksums and ffmpeg get."""
    return np.ascontiguousarray(pcm, dtype="<i2").tobytes()


def _certificate(segment_id: str, pcm: np.ndarray) -> str:
    digest = hashlib.sha256(segment_id.encode() + b"\x00" + pcm_bytes(pcm)).hexdigest()
    return f"narrator-segment={segment_id};sha256={digest}"


def encode_wav(samples: np.ndarray, sample_rate: int, segment_id: str) -> bytes:
    """A complete mono 16-bit WAV, in memory, certified as segment ``segment_id``'s audio."""
    pcm = to_pcm16(samples)
    buffer = io.BytesIO()
    with sf.SoundFile(buffer, "w", sample_rate, 1, SUBTYPE, format="WAV") as wav:
        wav.comment = _certificate(segment_id, pcm)
        wav.write(pcm)
    return buffer.getvalue()


def decode_verified(
    data: bytes, *, segment_id: str, text_chars: int, sample_rate: int | None = None
) -> tuple[WavRecord, np.ndarray]:
    """Decode a segment WAV; check it is whole, is segment ``segment_id``'s, and is plausible
    speech for ``text_chars`` characters."""
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
    certificate = _CERTIFICATE.fullmatch(comment)
    if certificate is None:
        raise AudioCheckError("has no narrator certificate")
    if certificate["segment"] != segment_id:
        raise AudioCheckError(f"is segment {certificate['segment']}'s audio, not this segment's")
    if comment != _certificate(segment_id, pcm):
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


def check_wav_file(
    path: Path, *, segment_id: str, text_chars: int, sample_rate: int | None = None
) -> WavRecord:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise AudioCheckError("is missing") from None
    return decode_verified(data, segment_id=segment_id, text_chars=text_chars, sample_rate=sample_rate)[0]


_READ_CHUNK = 1 << 18


def master_blocks(master: Path, start: int, end: int, dtype: str = "int16") -> Iterator[np.ndarray]:
    """Samples [start, end) of the master, a block at a time (a chapter can be hours long)."""
    with sf.SoundFile(str(master)) as wav:
        wav.seek(start)
        remaining = end - start
        while remaining > 0:
            block = wav.read(min(remaining, _READ_CHUNK), dtype=dtype)
            if len(block) == 0:
                raise CatalogError(f"{master} ended before sample {end}")
            yield block
            remaining -= len(block)

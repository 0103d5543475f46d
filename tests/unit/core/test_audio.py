"""Certified segment WAVs: what passes verification and every way one must fail."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from narrator.core.audio import (
    AudioCheckError,
    WavRecord,
    check_wav_file,
    decode_verified,
    encode_wav,
    to_pcm16,
)

RATE = 16000
SEGMENT = "0123456789abcdef"


def speech_like(seconds: float, rate: int = RATE, seed: int = 0) -> np.ndarray:
    """A tone with a syllable-rate envelope and a little noise: loud enough, not silent."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(seconds * rate)) / rate
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 4 * t) ** 2
    signal = 0.4 * envelope * np.sin(2 * np.pi * 180 * t) + 0.02 * rng.standard_normal(len(t))
    return signal.astype(np.float32)


def _data_offset(data: bytes) -> int:
    """Offset of the first PCM byte of a RIFF/WAVE file."""
    offset = 12
    while offset < len(data):
        chunk, size = data[offset : offset + 4], int.from_bytes(data[offset + 4 : offset + 8], "little")
        if chunk == b"data":
            return offset + 8
        offset += 8 + size + (size & 1)
    raise AssertionError("no data chunk")


TEXT_CHARS = 40  # 2.8 s at 0.07 s per character


@pytest.fixture(scope="module")
def good() -> tuple[np.ndarray, bytes]:
    samples = speech_like(TEXT_CHARS * 0.07)
    return samples, encode_wav(samples, RATE, SEGMENT)


def test_good_signal_passes_and_record_hashes_the_file(tmp_path: Path, good) -> None:
    samples, data = good
    path = tmp_path / "seg.wav"
    path.write_bytes(data)
    record = check_wav_file(path, text_chars=TEXT_CHARS, sample_rate=RATE, segment_id=SEGMENT)
    assert record == WavRecord(frames=len(samples), sample_rate=RATE, sha256=hashlib.sha256(data).hexdigest())
    assert record.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert record.seconds == pytest.approx(TEXT_CHARS * 0.07)
    decoded_record, pcm = decode_verified(data, text_chars=TEXT_CHARS, segment_id=SEGMENT)
    assert decoded_record == record
    assert np.array_equal(pcm, to_pcm16(samples))


def test_encoding_is_deterministic_and_mono_pcm16(good) -> None:
    samples, data = good
    assert encode_wav(samples, RATE, SEGMENT) == data
    info = sf.info(io.BytesIO(data))
    assert (info.channels, info.samplerate, info.subtype, info.format) == (1, RATE, "PCM_16", "WAV")


def test_to_pcm16_clips_and_rounds() -> None:
    pcm = to_pcm16(np.array([-2.0, -1.0, 0.0, 0.5, 1.0, 3.0]))
    assert pcm.dtype == np.dtype("<i2")
    assert pcm.tolist() == [-32767, -32767, 0, 16384, 32767, 32767]


@pytest.mark.parametrize("cut", ["last_byte", "half", "just_after_header", "inside_header", "ten_bytes"])
def test_truncated_file_fails(tmp_path: Path, good, cut: str) -> None:
    _, data = good
    keep = {
        "last_byte": len(data) - 1,
        "half": len(data) // 2,
        "just_after_header": _data_offset(data) + 2,
        "inside_header": 30,
        "ten_bytes": 10,
    }[cut]
    path = tmp_path / "seg.wav"
    path.write_bytes(data[:keep])
    with pytest.raises(AudioCheckError):
        check_wav_file(path, text_chars=TEXT_CHARS, segment_id=SEGMENT)


def test_truncated_pcm_with_intact_certificate_fails(good) -> None:
    # Drop PCM from the middle of the data chunk but keep everything after it (the INFO
    # chunk, wherever it lives): the header then lies and the checksum cannot match.
    _, data = good
    start = _data_offset(data) + 1000
    damaged = data[:start] + data[start + 2000 :]
    with pytest.raises(AudioCheckError):
        decode_verified(damaged, text_chars=TEXT_CHARS, segment_id=SEGMENT)


def test_altered_sample_fails(good) -> None:
    _, data = good
    position = _data_offset(data) + 2 * 5000
    altered = bytearray(data)
    altered[position] ^= 0x01
    with pytest.raises(AudioCheckError, match="truncated or altered"):
        decode_verified(bytes(altered), text_chars=TEXT_CHARS, segment_id=SEGMENT)


def test_altered_certificate_fails(good) -> None:
    _, data = good
    marker = b";sha256="
    index = data.index(marker) + len(marker)
    altered = bytearray(data)
    altered[index] = ord("0") if altered[index] != ord("0") else ord("1")
    with pytest.raises(AudioCheckError, match="truncated or altered"):
        decode_verified(bytes(altered), text_chars=TEXT_CHARS, segment_id=SEGMENT)


def test_uncertified_wav_fails() -> None:
    buffer = io.BytesIO()
    sf.write(buffer, speech_like(2.0), RATE, subtype="PCM_16", format="WAV")
    with pytest.raises(AudioCheckError, match="certificate"):
        decode_verified(buffer.getvalue(), text_chars=TEXT_CHARS, segment_id=SEGMENT)


def test_silent_fails() -> None:
    with pytest.raises(AudioCheckError, match="silent"):
        decode_verified(
            encode_wav(np.zeros(RATE * 2, dtype=np.float32), RATE, SEGMENT),
            text_chars=TEXT_CHARS,
            segment_id=SEGMENT,
        )


def test_nearly_silent_fails() -> None:
    quiet = speech_like(2.0) * 0.002 / 0.45
    with pytest.raises(AudioCheckError, match="silent"):
        decode_verified(encode_wav(quiet, RATE, SEGMENT), text_chars=TEXT_CHARS, segment_id=SEGMENT)


def test_empty_wav_fails() -> None:
    with pytest.raises(AudioCheckError, match="empty"):
        decode_verified(
            encode_wav(np.zeros(0, dtype=np.float32), RATE, SEGMENT),
            text_chars=TEXT_CHARS,
            segment_id=SEGMENT,
        )


def test_empty_bytes_and_missing_file_fail(tmp_path: Path) -> None:
    with pytest.raises(AudioCheckError, match="does not decode"):
        decode_verified(b"", text_chars=TEXT_CHARS, segment_id=SEGMENT)
    with pytest.raises(AudioCheckError, match="does not decode"):
        decode_verified(b"not a wav file at all" * 10, text_chars=TEXT_CHARS, segment_id=SEGMENT)
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    with pytest.raises(AudioCheckError):
        check_wav_file(empty, text_chars=TEXT_CHARS, segment_id=SEGMENT)
    with pytest.raises(AudioCheckError, match="missing"):
        check_wav_file(tmp_path / "absent.wav", text_chars=TEXT_CHARS, segment_id=SEGMENT)


def test_another_segments_wav_fails_however_whole(good) -> None:
    # A WAV copied over another segment's proves itself whole, but not that it is this one's.
    _, data = good
    with pytest.raises(AudioCheckError, match=f"is segment {SEGMENT}'s audio, not this segment's"):
        decode_verified(data, text_chars=TEXT_CHARS, segment_id="fedcba9876543210")


def test_certificate_moved_to_another_segment_id_fails(good) -> None:
    # Rewriting only the id in the certificate breaks the digest, which covers the id too.
    _, data = good
    forged = data.replace(SEGMENT.encode(), b"fedcba9876543210")
    with pytest.raises(AudioCheckError, match="truncated or altered"):
        decode_verified(forged, text_chars=TEXT_CHARS, segment_id="fedcba9876543210")


def test_pcm_only_certificate_of_older_narrator_fails() -> None:
    pcm = to_pcm16(speech_like(TEXT_CHARS * 0.07))
    buffer = io.BytesIO()
    with sf.SoundFile(buffer, "w", RATE, 1, "PCM_16", format="WAV") as wav:
        wav.comment = "narrator-pcm-sha256=" + hashlib.sha256(pcm.tobytes()).hexdigest()
        wav.write(pcm)
    with pytest.raises(AudioCheckError, match="no narrator certificate"):
        decode_verified(buffer.getvalue(), text_chars=TEXT_CHARS, segment_id=SEGMENT)


def test_stereo_fails() -> None:
    mono = speech_like(TEXT_CHARS * 0.07)
    buffer = io.BytesIO()
    with sf.SoundFile(buffer, "w", RATE, 2, "PCM_16", format="WAV") as wav:
        pcm = np.stack([to_pcm16(mono), to_pcm16(mono)], axis=1)
        # Even with a certificate of its interleaved PCM it is not a usable segment.
        digest = hashlib.sha256(SEGMENT.encode() + b"\x00" + pcm.astype("<i2").tobytes()).hexdigest()
        wav.comment = f"narrator-segment={SEGMENT};sha256={digest}"
        wav.write(pcm)
    with pytest.raises(AudioCheckError, match="2 channels"):
        decode_verified(buffer.getvalue(), text_chars=TEXT_CHARS, segment_id=SEGMENT)


def test_wrong_sample_rate_fails_only_when_one_is_expected() -> None:
    data = encode_wav(speech_like(TEXT_CHARS * 0.07, rate=22050), 22050, SEGMENT)
    assert decode_verified(data, text_chars=TEXT_CHARS, segment_id=SEGMENT)[0].sample_rate == 22050
    assert (
        decode_verified(data, text_chars=TEXT_CHARS, sample_rate=22050, segment_id=SEGMENT)[0].sample_rate
        == 22050
    )
    with pytest.raises(AudioCheckError, match="sample rate 22050 Hz, expected 16000 Hz"):
        decode_verified(data, text_chars=TEXT_CHARS, sample_rate=16000, segment_id=SEGMENT)


def test_implausibly_short_audio_fails() -> None:
    data = encode_wav(speech_like(1.0), RATE, SEGMENT)
    assert decode_verified(data, text_chars=10, segment_id=SEGMENT)[0].frames == RATE  # fine for a short text
    with pytest.raises(AudioCheckError, match="not plausible speech"):
        decode_verified(data, text_chars=2000, segment_id=SEGMENT)


def test_implausibly_long_audio_fails() -> None:
    data = encode_wav(speech_like(60.0, rate=8000), 8000, SEGMENT)
    assert (
        decode_verified(data, text_chars=300, segment_id=SEGMENT)[0].frames == 60 * 8000
    )  # fine for a long text
    with pytest.raises(AudioCheckError, match="not plausible speech"):
        decode_verified(data, text_chars=3, segment_id=SEGMENT)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_samples_raise_in_encode(bad: float) -> None:
    samples = speech_like(1.0)
    samples[100] = bad
    with pytest.raises(AudioCheckError, match="NaN or infinite"):
        encode_wav(samples, RATE, SEGMENT)

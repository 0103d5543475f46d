"""The M4B: AAC in an MP4 with chapters, tags and cover, encoded in parts cut inside pauses."""

from __future__ import annotations

import bisect
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from functools import partial
from pathlib import Path

from narrator.core.cpus import usable_cpus
from narrator.core.errors import UserError
from narrator.core.language import iso639_2
from narrator.core.publish import publishing, temp_path
from narrator.core.timeline import Timeline, book_timeline
from narrator.package.ffmpeg import (
    MetaChapter,
    Metadata,
    feed_master,
    ffmetadata_args,
    find_ffmpeg,
    parse_ffmetadata,
    pcm_input,
    read_back,
    run_ffmpeg,
    write_ffmetadata,
)
from narrator.package.metadata import STIK_AUDIOBOOK, PackageSettings, book_info, book_tags, cover_args

#: Samples in an AAC frame. Every part but the last holds whole frames: the joined file keeps each
#: part's last frame whole, so a part ending mid-frame would add the rest of that frame as silence.
AAC_FRAME = 1024


#: Digital silence the master must hold on both sides of a cut: an AAC frame and the frame it
#: overlaps, so that whatever an encoder does at a part's edge is silent anyway.
CUT_MARGIN = 2 * AAC_FRAME


def encoding_cuts(timeline: Timeline, parts: int) -> list[int]:
    """Where to cut the master so that ``parts`` encoders can share it: on a frame boundary in a
    pause (digital silence in the master) at least CUT_MARGIN from speech on both sides, each
    nearest to an equal share; fewer cuts where the book has fewer such pauses."""
    candidates = []
    for span in timeline.spans:
        cut = round((span.end + span.pause / 2) / AAC_FRAME) * AAC_FRAME
        if cut - span.end >= CUT_MARGIN and span.end + span.pause - cut >= CUT_MARGIN:
            candidates.append(cut)
    if not candidates:
        return []
    cuts: set[int] = set()
    for share in range(1, parts):
        ideal = timeline.frames * share // parts
        index = bisect.bisect_left(candidates, ideal)
        nearby = candidates[max(0, index - 1) : index + 1]
        cuts.add(min(nearby, key=lambda cut: abs(cut - ideal)))
    return sorted(cuts)


def aac_args(settings: PackageSettings) -> list[str]:
    """The M4B's AAC encoding (also the read-along EPUB's chapter audio)."""
    return ["-c:a", "aac", "-aac_coder", settings.m4b_aac_coder, "-b:a", settings.m4b_bitrate]


def _concat_list(parts: Sequence[Path]) -> str:
    """An ffmpeg concat script of the parts (beside it). ``inpoint 0`` makes the demuxer drop each
    part's encoder delay (its priming samples), so a part of whole frames decodes to exactly the
    samples it was given; the muxer trims the last part's padding as in any one-part file."""
    quoted = (part.name.replace("'", "'\\''") for part in parts)
    return "ffconcat version 1.0\n" + "".join(f"file '{name}'\ninpoint 0\n" for name in quoted)


def package_m4b(
    master: str | Path,
    catalog_path: str | Path,
    book_json: str | Path,
    output: str | Path,
    pauses: Mapping[str, float],
    settings: PackageSettings,
    threads: int = 1,
) -> str:
    """Encode the master to AAC in an MP4 (iPod/M4B flavour) with chapters, tags and cover.

    ffmpeg's AAC encoder runs on one CPU, so the master is cut inside pauses (``encoding_cuts``)
    into up to ``threads`` parts (no more than this process has CPUs), encoded at once, and the
    parts are joined without re-encoding: as long as the master to the sample, each part's audio
    as a one-piece encode would have it but for the encoder starting afresh in silence at a cut.
    """
    master, output = Path(master), Path(output)
    _, timeline = book_timeline(catalog_path, master, pauses)
    info = book_info(book_json, settings)
    ffmpeg = find_ffmpeg(settings.ffmpeg)
    metadata = Metadata(
        tags={**book_tags(info), "media_type": STIK_AUDIOBOOK},
        chapters=[MetaChapter(c.start, c.end, {"title": c.title}) for c in timeline.chapters],
        timebase=Fraction(1, timeline.rate),
    )
    cuts = encoding_cuts(timeline, min(threads, usable_cpus()))
    spans = list(zip([0, *cuts], [*cuts, timeline.frames], strict=True))
    pcm = [*pcm_input(timeline.rate), "-i", "pipe:0"]
    aac = [*aac_args(settings), "-f", "mp4"]
    with publishing(output) as temp:
        part_files = [temp_path(output, f".part{number}.m4a") for number in range(len(spans))]
        concat = temp_path(output, ".ffconcat")
        meta = write_ffmetadata(temp_path(output, ".ffmetadata"), metadata)
        try:
            with ThreadPoolExecutor(max_workers=len(spans)) as encoders:
                encoded = [
                    encoders.submit(
                        run_ffmpeg,
                        ffmpeg,
                        [*pcm, *aac, part],
                        partial(feed_master, master=master, start=a, end=b),
                    )
                    for part, (a, b) in zip(part_files, spans, strict=True)
                ]
                for done in encoded:
                    done.result()
            concat.write_text(_concat_list(part_files), encoding="utf-8")
            args: list[str | os.PathLike[str]] = ["-f", "concat", "-safe", "0", "-i", concat, "-i", meta]
            if info.cover is not None:
                args += ["-i", info.cover]
            args += ["-map", "0:a:0", "-map_metadata", "1", "-map_chapters", "1", *ffmetadata_args(metadata)]
            args += cover_args(info.cover, 2)
            args += ["-c:a", "copy", "-metadata:s:a:0", f"language={iso639_2(info.language)}"]
            if settings.faststart:
                args += ["-movflags", "+faststart"]
            # The ipod muxer is the MP4 muxer in iTunes mode; the brand tells players it is an audiobook.
            args += ["-brand", "M4B ", "-f", "ipod"]
            run_ffmpeg(ffmpeg, [*args, temp])
        finally:
            for leftover in (meta, concat, *part_files):
                leftover.unlink(missing_ok=True)
        _, chapters = parse_ffmetadata(read_back(ffmpeg, temp))
        if len(chapters) != len(timeline.chapters):
            expected = len(timeline.chapters)
            raise UserError(f"{output}: ffmpeg wrote {len(chapters)} chapters, expected {expected}")
    return (
        f"packaged {output}: {len(timeline.chapters)} chapters, {timeline.seconds:.1f} s, "
        f"AAC {settings.m4b_bitrate} in {len(spans)} part(s) at once, cover {'yes' if info.cover else 'none'}"
    )

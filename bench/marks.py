"""What one catalog mark costs as the book grows: in place (today) against a whole rewrite (before).

For each N it writes an N-row catalog of realistic rows (sentences of 20 to 200 characters,
about 110 on average, as in a novel) and marks 200 segments spread over the book. Per mark it
prints the bytes written and read (from /proc/self/io: what the process asked the kernel for)
and the milliseconds; then the same for 200 marks done the earlier way (read the whole catalog,
rewrite it to a temp file, fsync, rename), side by side in the same run. A process's first mark
also reads the whole catalog once to find the rows (a render job's process does so once for all
its segments); that read is printed apart, as "first read".

    python bench/marks.py                 # N = 1000 8000 30000
    python bench/marks.py 1000 100000     # other sizes
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from narrator.core.audio import WavRecord
from narrator.core.catalog import Row, mark_completed, write_catalog
from narrator.core.publish import replace_durably

MARKS = 200
SENTENCE = (
    "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age " * 3
)


def sentence(index: int) -> str:
    """A sentence of 20 to 200 characters, its length spread evenly over the book."""
    return f"{SENTENCE[: 20 + index * 37 % 181]} {index}."


def rows(count: int) -> list[Row]:
    return [
        Row(
            segment_id=f"{index:016x}",
            sequence=index + 1,
            chapter=index // 300 + 1,
            chapter_title=f"Chapter {index // 300 + 1}",
            paragraph=index // 5 + 1,
            text=sentence(index),
            spoken=sentence(index),
            pause_after="sentence",
            wav_path=f"segments/{index:016x}.wav",
        )
        for index in range(count)
    ]


def io_counters() -> tuple[int, int]:
    """Bytes this process has written and read through system calls so far."""
    fields = dict(line.split(": ") for line in Path("/proc/self/io").read_text().splitlines())
    return int(fields["wchar"]), int(fields["rchar"])


def rewrite_whole(path: Path) -> None:
    """The earlier mark: the whole catalog read, then replaced by temp, fsync and rename."""
    replace_durably(path, path.read_bytes())


def measure(count: int, mark) -> tuple[float, float, float, float]:
    """kB read by the first mark, then kB written and read, and ms, per mark."""
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        path = Path(tmp) / "catalog.tsv"
        write_catalog(path, rows(count))
        record = WavRecord(frames=123_456, sample_rate=22_050, sha256="ab" * 32)
        ids = [f"{index:016x}" for index in range(0, count, max(1, count // MARKS))][:MARKS]
        _, first = io_counters()
        mark(path, f"{count - 1:016x}", record)
        written, read = io_counters()
        start = time.perf_counter()
        for segment_id in ids:
            mark(path, segment_id, record)
        seconds = time.perf_counter() - start
        written_after, read_after = io_counters()
    return (
        (read - first) / 1000,
        (written_after - written) / len(ids) / 1000,
        (read_after - read) / len(ids) / 1000,
        1000 * seconds / len(ids),
    )


def main(sizes: list[int]) -> None:
    columns = (
        "N",
        "first read kB",
        "written kB",
        "read kB",
        "ms/mark",
        "before: written kB",
        "read kB",
        "ms/mark",
    )
    print("  ".join(f"{name:>18}" for name in columns))
    for count in sizes:
        in_place = measure(
            count, lambda path, segment_id, record: mark_completed(path, segment_id, record, 1.0)
        )
        before = measure(count, lambda path, segment_id, record: rewrite_whole(path))
        figures = [count, *(f"{value:.2f}" for value in (*in_place, *before[1:]))]
        print("  ".join(f"{figure:>18}" for figure in figures))
        sys.stdout.flush()


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [1000, 8000, 30000])

"""Package the master WAV: an M4B with chapters, tags and cover; per-chapter files; SRT and VTT subtitles.

Every position comes from the timeline (narrator.core.timeline): the catalog's recorded frames and the
configured pauses, the same layout the master was assembled with. Nothing is re-measured.

Every output is written under a temp name that matches no output pattern (``.<name>.tmp-<pid>.<ext>``,
the real extension last) and published by rename, so a crash leaves either the old output or none.
"""

#!/usr/bin/env python3
"""Re-check published WAVs and re-queue damaged ones: same as `narrator verify` (see README)."""

import sys

from narrator.cli import main

sys.exit(main(["verify", *sys.argv[1:]]))

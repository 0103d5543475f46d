#!/usr/bin/env python3
"""Progress of each book from its catalog: same as `narrator status` (see README)."""

import sys

from narrator.cli import main

sys.exit(main(["status", *sys.argv[1:]]))

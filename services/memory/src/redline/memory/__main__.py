"""Run the memory service on its own: `python -m redline.memory` (`... migrate` to apply its
migrations and exit)."""

from __future__ import annotations

import sys

from redline.memory.app import plugin
from redline.memory.settings import MemorySettings
from redline.runtime.serve import run_service

if __name__ == "__main__":
    sys.exit(run_service("memory", MemorySettings, plugin, sys.argv[1:]))

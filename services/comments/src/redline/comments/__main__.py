"""Run the comments service on its own: `python -m redline.comments` (`... migrate` to apply its
migrations and exit)."""

from __future__ import annotations

import sys

from redline.comments.app import plugin
from redline.comments.settings import CommentsSettings
from redline.runtime.serve import run_service

if __name__ == "__main__":
    sys.exit(run_service("comments", CommentsSettings, plugin, sys.argv[1:]))

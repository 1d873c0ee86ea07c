"""Run the notify service on its own: `python -m redline.notify` (`... migrate` to apply its
migrations and exit)."""

from __future__ import annotations

import sys

from redline.notify.app import plugin
from redline.notify.settings import NotifySettings
from redline.runtime.serve import run_service

if __name__ == "__main__":
    sys.exit(run_service("notify", NotifySettings, plugin, sys.argv[1:]))

"""Run the identity service on its own: `python -m redline.identity` (`... migrate` to apply its
migrations and exit)."""

from __future__ import annotations

import sys

from redline.identity.app import plugin
from redline.identity.settings import IdentitySettings
from redline.runtime.serve import run_service

if __name__ == "__main__":
    sys.exit(run_service("identity", IdentitySettings, plugin, sys.argv[1:]))

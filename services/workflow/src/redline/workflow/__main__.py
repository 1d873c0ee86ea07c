"""Run the workflow service on its own: `python -m redline.workflow` (`... migrate` to apply its
migrations and exit)."""

from __future__ import annotations

import sys

from redline.runtime.serve import run_service
from redline.workflow.app import plugin
from redline.workflow.settings import WorkflowSettings

if __name__ == "__main__":
    sys.exit(run_service("workflow", WorkflowSettings, plugin, sys.argv[1:]))

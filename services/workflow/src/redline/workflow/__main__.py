"""Run the workflow service on its own: `python -m redline.workflow`."""

from __future__ import annotations

from redline.runtime.serve import serve
from redline.runtime.settings import load_settings
from redline.workflow.app import create_app
from redline.workflow.settings import WorkflowSettings


def main() -> None:
    settings = load_settings(WorkflowSettings)
    serve(create_app(settings), settings)


if __name__ == "__main__":
    main()

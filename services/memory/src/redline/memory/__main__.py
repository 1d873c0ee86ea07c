"""Run the memory service on its own: `python -m redline.memory`."""

from __future__ import annotations

from redline.memory.app import create_app
from redline.memory.settings import MemorySettings
from redline.runtime.serve import serve
from redline.runtime.settings import load_settings


def main() -> None:
    settings = load_settings(MemorySettings)
    serve(create_app(settings), settings)


if __name__ == "__main__":
    main()

"""Run the notify service on its own: `python -m redline.notify`."""

from __future__ import annotations

from redline.notify.app import create_app
from redline.notify.settings import NotifySettings
from redline.runtime.serve import serve
from redline.runtime.settings import load_settings


def main() -> None:
    settings = load_settings(NotifySettings)
    serve(create_app(settings), settings)


if __name__ == "__main__":
    main()

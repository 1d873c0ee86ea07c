"""Run the identity service on its own: `python -m redline.identity`."""

from __future__ import annotations

from redline.identity.app import create_app
from redline.identity.settings import IdentitySettings
from redline.runtime.serve import serve
from redline.runtime.settings import load_settings


def main() -> None:
    settings = load_settings(IdentitySettings)
    serve(create_app(settings), settings)


if __name__ == "__main__":
    main()

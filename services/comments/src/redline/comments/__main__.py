"""Run the comments service on its own: `python -m redline.comments`."""

from __future__ import annotations

from redline.comments.app import create_app
from redline.comments.settings import CommentsSettings
from redline.runtime.serve import serve
from redline.runtime.settings import load_settings


def main() -> None:
    settings = load_settings(CommentsSettings)
    serve(create_app(settings), settings)


if __name__ == "__main__":
    main()

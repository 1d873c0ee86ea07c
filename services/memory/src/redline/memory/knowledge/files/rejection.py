"""Why a file was refused: one exception with a stable code the service maps to its API error."""

from __future__ import annotations


class FileRejected(Exception):
    """A customer file that cannot be ingested; `code` is stable, `detail` is for people."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail

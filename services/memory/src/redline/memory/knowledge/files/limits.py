"""What one file may cost, and how a file is refused: bounds on the work one file may cause, so
a hostile or huge upload fails fast and cheaply, and the one exception every refusal raises,
with a stable code the service maps to its API error."""

from __future__ import annotations

from typing import Annotated

import msgspec

Positive = Annotated[int, msgspec.Meta(gt=0)]


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """Per-file bounds; exceeding one rejects the file (`max_rules` only truncates)."""

    max_pages: Positive = 2_000
    max_rows: Positive = 200_000
    max_line_bytes: Positive = 1 << 20
    max_uncompressed_bytes: Positive = 200 << 20
    max_rules: Positive = 2_000
    # Chunks one file may be indexed as: each is embedded and stored, so this bounds the work
    # and the vectors one file costs.
    max_chunks: Positive = 5_000


class FileRejected(Exception):
    """A customer file that cannot be ingested; `code` is stable, `detail` is for people."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail

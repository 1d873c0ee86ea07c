"""Schema names are interpolated into SQL (identifiers cannot be bound): checked once, here."""

from __future__ import annotations

import re

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def schema_name(name: str) -> str:
    if not _IDENT.fullmatch(name):  # `$` alone would let a trailing newline through
        raise ValueError(f"invalid schema name {name!r}")
    return name

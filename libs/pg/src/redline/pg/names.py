"""Schema and table names are interpolated into SQL (identifiers cannot be bound): checked
once, here."""

from __future__ import annotations

import re

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def schema_name(name: str) -> str:
    if not _IDENT.fullmatch(name):  # `$` alone would let a trailing newline through
        raise ValueError(f"invalid schema name {name!r}")
    return name


def table_name(qualified: str) -> str:
    """`schema.table`, each part a plain identifier."""
    schema, dot, table = qualified.partition(".")
    if not dot:
        raise ValueError(f"invalid table name {qualified!r} (write schema.table)")
    return f"{schema_name(schema)}.{schema_name(table)}"

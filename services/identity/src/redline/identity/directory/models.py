"""What organizations, folders and documents requests and results share: metadata, batch bounds
and the per-item results of keyed answers.

Fields beyond the named ones go in an explicit `metadata` object (see
docs/decisions/identity.md): a typo in a named field stays an INVALID_ARGUMENT instead of turning
silently into metadata.
"""

from __future__ import annotations

from typing import Annotated, Any, Protocol

import msgspec
from msgspec import Meta

from redline.identity.fields import AccessType, Id

Metadata = Annotated[
    dict[Annotated[str, Meta(min_length=1, max_length=128)], Any], Meta(max_length=64)
]
# Items of one add, update, delete, move or access change.
BATCH_MAX = 100
# Ids of one lookup (get by ids), as the hosted product limits them.
LOOKUP_MAX = 30
IdBatch = Annotated[list[Id], Meta(min_length=1, max_length=BATCH_MAX)]
IdLookup = Annotated[list[Id], Meta(min_length=1, max_length=LOOKUP_MAX)]
ListPageSize = Annotated[int, Meta(ge=1, le=1000)]


# per-item results ------------------------------------------------------------------------------


class KeyedResult(Protocol):
    """Any entry of a result keyed by id."""

    @property
    def success(self) -> bool: ...


class ItemResult(msgspec.Struct, omit_defaults=True):
    """One entry of a result keyed by id. `code` is set on failures only: `already-exists`,
    `not-found` or `invalid-argument`."""

    success: bool
    id: str
    message: str
    code: str | None = None


class AccessResult(msgspec.Struct, omit_defaults=True):
    """One entry of an access change keyed by id. `accessType` is null while the folder
    inherits; `inheritFromParent` is present in that case only."""

    success: bool
    accessType: AccessType | None
    message: str
    inheritFromParent: bool | None = None
    code: str | None = None

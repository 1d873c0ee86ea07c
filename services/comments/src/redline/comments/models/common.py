"""Field types and the request base shared by every comments endpoint."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

Id = Annotated[str, Meta(min_length=1, max_length=256)]
Name = Annotated[str, Meta(max_length=512)]
Url = Annotated[str, Meta(max_length=4096)]
Text = Annotated[str, Meta(max_length=100_000)]
Ms = Annotated[int, Meta(ge=0, le=10**14)]  # ms since the epoch
IdList = Annotated[list[Id], Meta(max_length=30)]  # the 30-id limit of document 2
Metadata = Annotated[dict[str, Any], Meta(max_length=256)]
Visibility = Literal["public", "organizationPrivate", "restricted"]
AnnotationType = Literal["comment", "suggestion"]
SourceType = Literal["rest-api", "agent"]
SuggestionStatus = Literal["pending", "accepted", "rejected"]


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Base of request bodies: unknown fields are an INVALID_ARGUMENT."""

"""Field types and the request base shared by every identity endpoint."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

Id = Annotated[str, Meta(min_length=1, max_length=256)]
Name = Annotated[str, Meta(max_length=256)]
Email = Annotated[str, Meta(min_length=3, max_length=320, pattern=r"^[^@\s]+@[^@\s]+$")]
Url = Annotated[str, Meta(max_length=2048)]
Domain = Annotated[str, Meta(min_length=1, max_length=255)]
KeyType = Literal["testing", "production"]
PageSize = Annotated[int, Meta(ge=1, le=100)]
PageToken = Annotated[str, Meta(max_length=1024)]


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Base of request bodies: unknown fields are an INVALID_ARGUMENT."""


class Empty(Request):
    pass

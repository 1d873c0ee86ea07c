"""Field types and the request base shared by identity's endpoints, and the words of the access
model (roles, access types, resource types) that requests, settings and rules all use."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

Id = Annotated[str, Meta(min_length=1, max_length=256)]
Name = Annotated[str, Meta(max_length=256)]
Email = Annotated[str, Meta(min_length=3, max_length=320, pattern=r"^[^@\s]+@[^@\s]+$")]
# Users' e-mail addresses are the caller's data: kept as given, bounded but not validated.
ContactEmail = Annotated[str, Meta(max_length=320)]
Url = Annotated[str, Meta(max_length=2048)]
Domain = Annotated[str, Meta(min_length=1, max_length=255)]
KeyType = Literal["testing", "production"]
PageSize = Annotated[int, Meta(ge=1, le=100)]
PageToken = Annotated[str, Meta(max_length=1024)]

Role = Literal["viewer", "editor"]
AccessType = Literal["public", "organizationPrivate", "restricted"]
ResourceType = Literal["organization", "folder", "document"]


class Request(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    """Base of request bodies: unknown fields are an INVALID_ARGUMENT."""


class Empty(Request):
    pass

"""Requests and answers of /v2/workspace/advancedwebhook/endpoints/*, in the shapes of the hosted
product's API reference; requests also take every field its official Python SDK sends.

In updates a field left out keeps its value; `null` clears an optional one (description,
filterTypes, channels, rateLimit, metadata).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import UNSET, Meta, UnsetType

from redline.identity.fields import Request, Url

EndpointRef = Annotated[str, Meta(min_length=1, max_length=256)]
Description = Annotated[str, Meta(max_length=1024)]
EventType = Annotated[str, Meta(min_length=1, max_length=128)]
FilterTypes = Annotated[list[EventType], Meta(min_length=1, max_length=50)]
Channel = Annotated[str, Meta(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")]
Channels = Annotated[list[Channel], Meta(min_length=1, max_length=10)]
# Deliveries per second.
RateLimit = Annotated[int, Meta(ge=1, le=65_535)]
Uid = Annotated[str, Meta(min_length=1, max_length=256, pattern=r"^[A-Za-z0-9_.-]+$")]
MetadataKey = Annotated[str, Meta(min_length=1, max_length=256)]
MetadataValue = Annotated[str, Meta(max_length=4096)]
Metadata = Annotated[dict[MetadataKey, MetadataValue], Meta(max_length=50)]
Limit = Annotated[int, Meta(ge=1, le=250)]
Iterator = Annotated[str, Meta(min_length=1, max_length=1024)]


class CreateEndpoint(Request):
    url: Url
    description: Description | None = None
    filterTypes: FilterTypes | None = None
    channels: Channels | None = None
    disabled: bool | None = None
    rateLimit: RateLimit | None = None
    uid: Uid | None = None
    metadata: Metadata | None = None


class UpdateEndpoint(Request):
    endpointId: EndpointRef
    url: Url | UnsetType = UNSET
    description: Description | UnsetType | None = UNSET
    filterTypes: FilterTypes | UnsetType | None = UNSET
    channels: Channels | UnsetType | None = UNSET
    disabled: bool | UnsetType = UNSET
    rateLimit: RateLimit | UnsetType | None = UNSET
    metadata: Metadata | UnsetType | None = UNSET


class EndpointRefRequest(Request):
    """`endpointId`: the id the create and list endpoints return, or the endpoint's `uid`."""

    endpointId: EndpointRef


class ListEndpoints(Request):
    limit: Limit | None = None
    iterator: Iterator | None = None


class Endpoint(msgspec.Struct, frozen=True, kw_only=True):
    """An endpoint as the API shows it: optional fields never set are null."""

    id: str
    url: str
    description: str | None
    filterTypes: list[str] | None
    channels: list[str] | None
    disabled: bool
    rateLimit: int | None
    uid: str | None
    createdAt: str  # ISO 8601, UTC, milliseconds
    updatedAt: str


class EndpointPage(msgspec.Struct, frozen=True, kw_only=True):
    endpoints: list[Endpoint]
    # Give `iterator` to get the next page (null when `done`), `prevIterator` the one before
    # (null on the first page).
    iterator: str | None
    prevIterator: str | None
    done: bool


class EndpointDeleted(msgspec.Struct, frozen=True):
    endpointId: str
    deleted: bool


class EndpointSecret(msgspec.Struct, frozen=True):
    endpointId: str
    secret: str

"""Domain requests: request and response Structs of /v2/workspace/domains/request,
requested/domains/get and additional-url-request."""

from __future__ import annotations

from typing import Literal

import msgspec

from redline.identity.fields import Id, Request
from redline.identity.key_settings.models import DomainInput


class RequestDomain(Request):
    domain: DomainInput
    # The document (and its organization) the domain was met on; the official SDK names both.
    clientDocumentId: Id | None = None
    organizationId: Id | None = None


class DecideDomainRequest(Request):
    action: Literal["accept", "reject"]
    id: Id
    # When given, it must be the document the request was made for.
    clientDocId: Id | None = None


class DomainRequest(msgspec.Struct):
    id: str
    domain: str
    organizationId: str  # "" when the request named none
    clientDocumentId: str  # "" when the request named none
    status: Literal["pending", "accepted", "rejected"]
    requestedAt: int
    decidedAt: int | None

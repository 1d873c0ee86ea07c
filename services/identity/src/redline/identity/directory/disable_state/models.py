"""Disable state: request and response Structs of /v2/organizations/access/disablestate/update
and /v2/organizations/documents/access/disablestate/update."""

from __future__ import annotations

import msgspec

from redline.identity.directory.models import IdBatch
from redline.identity.fields import Id, Request


class OrganizationDisableState(Request):
    organizationIds: IdBatch
    disabled: bool


class DocumentDisableState(Request):
    organizationId: Id
    documentIds: IdBatch
    disabled: bool


class DocumentDisableResult(msgspec.Struct, omit_defaults=True):
    """One entry of a document disable-state answer keyed by document id. `disabled` (the
    state now) is set on success, `code` on failure (`not-found`)."""

    success: bool
    id: str
    message: str
    disabled: bool | None = None
    code: str | None = None

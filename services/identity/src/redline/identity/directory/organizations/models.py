"""Organizations: request and response Structs of /v2/organizations/*."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from redline.identity.directory.models import BATCH_MAX, IdBatch, IdLookup, ListPageSize, Metadata
from redline.identity.fields import Id, Name, PageToken, Request


class NewOrganization(Request):
    organizationId: Id
    organizationName: Name = ""
    metadata: Metadata | None = None


class AddOrganizations(Request):
    organizations: Annotated[list[NewOrganization], Meta(min_length=1, max_length=BATCH_MAX)]


class OrganizationChange(Request):
    organizationId: Id
    organizationName: Name | None = None
    # Merged into the stored metadata; a key set to null is removed.
    metadata: Metadata | None = None


class UpdateOrganizations(Request):
    organizations: Annotated[list[OrganizationChange], Meta(min_length=1, max_length=BATCH_MAX)]


class GetOrganizations(Request):
    # Absent: every organization of the API key.
    organizationIds: IdLookup | None = None
    pageSize: ListPageSize = 1000
    pageToken: PageToken | None = None


class OrganizationIds(Request):
    organizationIds: IdBatch


class Organization(msgspec.Struct):
    id: str
    organizationName: str
    # Disabled: read-only (see /v2/organizations/access/disablestate/update).
    disabled: bool
    metadata: dict[str, Any]
    createdAt: int
    lastUpdated: int

"""The URL map of organizations: /v2/organizations/add|update|get|delete."""

from __future__ import annotations

from redline.envelope import Endpoint
from redline.identity.app_keys import ORGANIZATIONS
from redline.identity.directory.organizations.service import OrganizationService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/organizations/add",
        ORGANIZATIONS,
        OrganizationService.add,
        message="Organization(s) added successfully.",
        summary="Add organizations; the result is keyed by organization id",
        tags=("organizations",),
    ),
    Endpoint.of(
        "/v2/organizations/update",
        ORGANIZATIONS,
        OrganizationService.update,
        message="Organization(s) updated successfully.",
        summary="Rename organizations and merge into their metadata",
        tags=("organizations",),
    ),
    Endpoint.of(
        "/v2/organizations/get",
        ORGANIZATIONS,
        OrganizationService.get,
        paged=True,
        message="Organization(s) retrieved successfully.",
        summary="Get organizations by id, or all of the API key's, a page at a time",
        tags=("organizations",),
    ),
    Endpoint.of(
        "/v2/organizations/delete",
        ORGANIZATIONS,
        OrganizationService.delete,
        message="Organization(s) deleted successfully.",
        summary="Delete organizations with their folders, documents and users' grants",
        tags=("organizations",),
    ),
]

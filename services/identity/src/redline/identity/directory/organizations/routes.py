"""The URL map of organizations: /v2/organizations/add|update|get|delete."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Reply
from redline.identity.app_keys import ORGANIZATIONS
from redline.identity.directory.models import ItemResult
from redline.identity.directory.organizations import models


async def add_organizations(call: Call, request: models.AddOrganizations) -> dict[str, ItemResult]:
    return await call.app[ORGANIZATIONS].add(call.api_key, request)


async def update_organizations(
    call: Call, request: models.UpdateOrganizations
) -> dict[str, ItemResult]:
    return await call.app[ORGANIZATIONS].update(call.api_key, request)


async def get_organizations(
    call: Call, request: models.GetOrganizations
) -> Reply[list[models.Organization]]:
    return await call.app[ORGANIZATIONS].get(call.api_key, request)


async def delete_organizations(
    call: Call, request: models.OrganizationIds
) -> dict[str, ItemResult]:
    return await call.app[ORGANIZATIONS].delete(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/organizations/add",
        add_organizations,
        models.AddOrganizations,
        dict[str, ItemResult],
        message="Organization(s) added successfully.",
        summary="Add organizations; the result is keyed by organization id",
        tags=("organizations",),
    ),
    Endpoint(
        "/v2/organizations/update",
        update_organizations,
        models.UpdateOrganizations,
        dict[str, ItemResult],
        message="Organization(s) updated successfully.",
        summary="Rename organizations and merge into their metadata",
        tags=("organizations",),
    ),
    Endpoint(
        "/v2/organizations/get",
        get_organizations,
        models.GetOrganizations,
        list[models.Organization],
        paged=True,
        message="Organization(s) retrieved successfully.",
        summary="Get organizations by id, or all of the API key's, a page at a time",
        tags=("organizations",),
    ),
    Endpoint(
        "/v2/organizations/delete",
        delete_organizations,
        models.OrganizationIds,
        dict[str, ItemResult],
        message="Organization(s) deleted successfully.",
        summary="Delete organizations with their folders, documents and users' grants",
        tags=("organizations",),
    ),
]

"""The URL map of disable states: /v2/organizations/access/disablestate/update and
/v2/organizations/documents/access/disablestate/update."""

from __future__ import annotations

from redline.envelope import Call, Endpoint
from redline.identity.app_keys import DISABLE_STATE
from redline.identity.directory.disable_state import models
from redline.identity.directory.models import ItemResult


async def update_organization_disable_state(
    call: Call, request: models.OrganizationDisableState
) -> dict[str, ItemResult]:
    return await call.app[DISABLE_STATE].set_organizations(call.api_key, request)


async def update_document_disable_state(
    call: Call, request: models.DocumentDisableState
) -> dict[str, models.DocumentDisableResult]:
    return await call.app[DISABLE_STATE].set_documents(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/organizations/access/disablestate/update",
        update_organization_disable_state,
        models.OrganizationDisableState,
        dict[str, ItemResult],
        message="Updated disable state for Organization(s) successfully.",
        summary="Disable organizations (read-only) or enable them; a missing one is created",
        tags=("organizations",),
    ),
    Endpoint(
        "/v2/organizations/documents/access/disablestate/update",
        update_document_disable_state,
        models.DocumentDisableState,
        dict[str, models.DocumentDisableResult],
        message="Updated disable state for documents successfully.",
        summary="Disable documents (read-only) or enable them",
        tags=("documents",),
    ),
]

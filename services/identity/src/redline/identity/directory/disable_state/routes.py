"""The URL map of disable states: /v2/organizations/access/disablestate/update and
/v2/organizations/documents/access/disablestate/update."""

from __future__ import annotations

from redline.envelope import Endpoint
from redline.identity.app_keys import DISABLE_STATE
from redline.identity.directory.disable_state.service import DisableStateService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/organizations/access/disablestate/update",
        DISABLE_STATE,
        DisableStateService.set_organizations,
        message="Updated disable state for Organization(s) successfully.",
        summary="Disable organizations (read-only) or enable them; a missing one is created",
        tags=("organizations",),
    ),
    Endpoint.of(
        "/v2/organizations/documents/access/disablestate/update",
        DISABLE_STATE,
        DisableStateService.set_documents,
        message="Updated disable state for documents successfully.",
        summary="Disable documents (read-only) or enable them",
        tags=("documents",),
    ),
]

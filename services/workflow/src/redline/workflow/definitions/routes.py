"""The URL map of definitions: /v2/workflow/definitions/create|update|get|list|delete."""

from __future__ import annotations

from redline.envelope import Endpoint, Style
from redline.workflow.app_keys import DEFINITIONS
from redline.workflow.definitions.service import DefinitionService

ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/workflow/definitions/create",
        DEFINITIONS,
        DefinitionService.create,
        style=Style.PLAIN,
        summary="Validate, compile and store a new definition (version 1)",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/definitions/update",
        DEFINITIONS,
        DefinitionService.update,
        style=Style.PLAIN,
        summary="Replace a definition as its next version (ifVersion must be the current one)",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/definitions/get",
        DEFINITIONS,
        DefinitionService.get,
        style=Style.PLAIN,
        summary="A definition's current version",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/definitions/list",
        DEFINITIONS,
        DefinitionService.list,
        style=Style.PLAIN,
        summary="Active definitions, most recently updated first",
        tags=("workflow",),
    ),
    Endpoint.of(
        "/v2/workflow/definitions/delete",
        DEFINITIONS,
        DefinitionService.delete,
        style=Style.PLAIN,
        summary="Tombstone a definition, or purge it with its versions",
        tags=("workflow",),
    ),
]

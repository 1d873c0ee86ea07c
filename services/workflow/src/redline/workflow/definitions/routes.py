"""The URL map of definitions: /v2/workflow/definitions/create|update|get|list|delete."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Style
from redline.workflow.app_keys import DEFINITIONS
from redline.workflow.definitions import models


async def create(call: Call, request: models.CreateDefinition) -> models.DefinitionView:
    return await call.app[DEFINITIONS].create(call.api_key, request)


async def update(call: Call, request: models.UpdateDefinition) -> models.DefinitionView:
    return await call.app[DEFINITIONS].update(call.api_key, request)


async def get(call: Call, request: models.GetDefinition) -> models.DefinitionView:
    return await call.app[DEFINITIONS].get(call.api_key, request)


async def list_definitions(call: Call, request: models.ListDefinitions) -> models.DefinitionPage:
    return await call.app[DEFINITIONS].list(call.api_key, request)


async def delete(call: Call, request: models.DeleteDefinition) -> models.DeletedDefinition:
    return await call.app[DEFINITIONS].delete(call.api_key, request)


ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/workflow/definitions/create",
        create,
        models.CreateDefinition,
        models.DefinitionView,
        style=Style.PLAIN,
        summary="Validate, compile and store a new definition (version 1)",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/definitions/update",
        update,
        models.UpdateDefinition,
        models.DefinitionView,
        style=Style.PLAIN,
        summary="Replace a definition as its next version (ifVersion must be the current one)",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/definitions/get",
        get,
        models.GetDefinition,
        models.DefinitionView,
        style=Style.PLAIN,
        summary="A definition's current version",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/definitions/list",
        list_definitions,
        models.ListDefinitions,
        models.DefinitionPage,
        style=Style.PLAIN,
        summary="Active definitions, most recently updated first",
        tags=("workflow",),
    ),
    Endpoint(
        "/v2/workflow/definitions/delete",
        delete,
        models.DeleteDefinition,
        models.DeletedDefinition,
        style=Style.PLAIN,
        summary="Tombstone a definition, or purge it with its versions",
        tags=("workflow",),
    ),
]

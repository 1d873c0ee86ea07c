"""The URL map of advanced webhook endpoints: /v2/workspace/advancedwebhook/endpoints/*."""

from __future__ import annotations

from redline.envelope import AuthLevel, Call, Endpoint
from redline.identity.advanced_webhooks import models
from redline.identity.app_keys import ADVANCED_WEBHOOKS


async def create_endpoint(call: Call, request: models.CreateEndpoint) -> models.Endpoint:
    return await call.app[ADVANCED_WEBHOOKS].create(call.api_key, request)


async def list_endpoints(call: Call, request: models.ListEndpoints) -> models.EndpointPage:
    return await call.app[ADVANCED_WEBHOOKS].list(call.api_key, request)


async def update_endpoint(call: Call, request: models.UpdateEndpoint) -> models.Endpoint:
    return await call.app[ADVANCED_WEBHOOKS].update(call.api_key, request)


async def delete_endpoint(call: Call, request: models.EndpointRefRequest) -> models.EndpointDeleted:
    return await call.app[ADVANCED_WEBHOOKS].delete(call.api_key, request)


async def get_endpoint_secret(
    call: Call, request: models.EndpointRefRequest
) -> models.EndpointSecret:
    return await call.app[ADVANCED_WEBHOOKS].secret(call.api_key, request)


PREFIX = "/v2/workspace/advancedwebhook/endpoints"
TAG = ("advanced webhooks",)
ENDPOINTS: list[Endpoint] = [
    Endpoint(
        f"{PREFIX}/create",
        create_endpoint,
        models.CreateEndpoint,
        models.Endpoint,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoint created successfully.",
        summary="Add an endpoint; its signing secret is made here (read it with secret/get)",
        tags=TAG,
    ),
    Endpoint(
        f"{PREFIX}/get",
        list_endpoints,
        models.ListEndpoints,
        models.EndpointPage,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoints retrieved successfully.",
        summary="List the API key's endpoints in creation order, a page at a time",
        tags=TAG,
    ),
    Endpoint(
        f"{PREFIX}/update",
        update_endpoint,
        models.UpdateEndpoint,
        models.Endpoint,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoint updated successfully.",
        summary="Change the fields sent (null clears an optional one); answers the endpoint",
        tags=TAG,
    ),
    Endpoint(
        f"{PREFIX}/delete",
        delete_endpoint,
        models.EndpointRefRequest,
        models.EndpointDeleted,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoint deleted successfully.",
        summary="Delete an endpoint: nothing more is delivered to it, its secret is gone",
        tags=TAG,
    ),
    Endpoint(
        f"{PREFIX}/secret/get",
        get_endpoint_secret,
        models.EndpointRefRequest,
        models.EndpointSecret,
        auth=AuthLevel.API_KEY,
        message="Advanced webhook endpoint secret retrieved successfully.",
        summary="The endpoint's Standard Webhooks signing secret (whsec_…)",
        tags=TAG,
    ),
]

"""The URL map of domain requests: /v2/workspace/domains/request, requested/domains/get and
additional-url-request."""

from __future__ import annotations

from redline.envelope import AuthLevel, Call, Endpoint
from redline.identity.app_keys import DOMAIN_REQUESTS
from redline.identity.domainrequests import models
from redline.identity.fields import Empty


async def request_domain(call: Call, request: models.RequestDomain) -> models.DomainRequest:
    return await call.app[DOMAIN_REQUESTS].request(call.api_key, request)


async def get_requested_domains(call: Call, request: Empty) -> list[models.DomainRequest]:
    return await call.app[DOMAIN_REQUESTS].open_requests(call.api_key)


async def decide_domain_request(
    call: Call, request: models.DecideDomainRequest
) -> models.DomainRequest:
    return await call.app[DOMAIN_REQUESTS].decide(call.api_key, request)


TAG = ("config",)
ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/workspace/domains/request",
        request_domain,
        models.RequestDomain,
        models.DomainRequest,
        auth=AuthLevel.API_KEY,
        message="Domain request created successfully.",
        summary="Ask the API key's owner to allow a domain",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/requested/domains/get",
        get_requested_domains,
        Empty,
        list[models.DomainRequest],
        auth=AuthLevel.API_KEY,
        message="Requested domains retrieved successfully.",
        summary="List the open domain requests, oldest first",
        tags=TAG,
    ),
    Endpoint(
        "/v2/workspace/additional-url-request",
        decide_domain_request,
        models.DecideDomainRequest,
        models.DomainRequest,
        auth=AuthLevel.API_KEY,
        message="Domain request updated successfully.",
        summary="Accept a domain request (the domain becomes allowed) or reject it",
        tags=TAG,
    ),
]

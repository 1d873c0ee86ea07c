"""The URL map of domain requests: /v2/workspace/domains/request, requested/domains/get and
additional-url-request."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.app_keys import DOMAIN_REQUESTS
from redline.identity.domainrequests.service import DomainRequestService
from redline.identity.fields import Empty

TAG = ("config",)
ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/workspace/domains/request",
        DOMAIN_REQUESTS,
        DomainRequestService.request,
        auth=AuthLevel.API_KEY,
        message="Domain request created successfully.",
        summary="Ask the API key's owner to allow a domain",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/requested/domains/get",
        DOMAIN_REQUESTS,
        DomainRequestService.open_requests,
        request=Empty,
        auth=AuthLevel.API_KEY,
        message="Requested domains retrieved successfully.",
        summary="List the open domain requests, oldest first",
        tags=TAG,
    ),
    Endpoint.of(
        "/v2/workspace/additional-url-request",
        DOMAIN_REQUESTS,
        DomainRequestService.decide,
        auth=AuthLevel.API_KEY,
        message="Domain request updated successfully.",
        summary="Accept a domain request (the domain becomes allowed) or reject it",
        tags=TAG,
    ),
]

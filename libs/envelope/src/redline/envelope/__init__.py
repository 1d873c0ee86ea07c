"""The HTTP contract every Redline service speaks: envelopes, errors, auth headers, pagination."""

from redline.envelope.auth import (
    AdminPolicy,
    ApiKeyPrincipal,
    AuthVerifier,
    HeaderNames,
    WorkspacePrincipal,
)
from redline.envelope.codec import decode_document, decode_request
from redline.envelope.endpoint import (
    ENDPOINTS,
    GATE,
    AuthLevel,
    Call,
    Either,
    Endpoint,
    Gate,
    Reply,
    Style,
    add_endpoints,
    paged,
)
from redline.envelope.middleware import end_unread_body, envelope_middleware
from redline.envelope.pagination import PAGE_TOKENS, PageTokens
from redline.envelope.ratelimit import RateLimiter, Tier
from redline.envelope.request import Request

__all__ = [
    "ENDPOINTS",
    "GATE",
    "PAGE_TOKENS",
    "AdminPolicy",
    "ApiKeyPrincipal",
    "AuthLevel",
    "AuthVerifier",
    "Call",
    "Either",
    "Endpoint",
    "Gate",
    "HeaderNames",
    "PageTokens",
    "RateLimiter",
    "Reply",
    "Request",
    "Style",
    "Tier",
    "WorkspacePrincipal",
    "add_endpoints",
    "decode_document",
    "decode_request",
    "end_unread_body",
    "envelope_middleware",
    "paged",
]

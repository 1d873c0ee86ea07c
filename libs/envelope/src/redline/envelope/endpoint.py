"""Typed endpoints: a handler takes the caller and a decoded request Struct and returns data.

Everything around it (authentication, rate limit, body size, decode, envelope) happens here once,
so handlers stay a few lines and every endpoint behaves the same. The registry of endpoints also
feeds the OpenAPI document.

Most endpoints only hand the caller and the request to a service: `Endpoint.of` builds those from
the service's method, and takes the request and response types from the method's annotations, so
what the document declares is what the service returns.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, Literal, TypedDict, Unpack, overload

import msgspec
from aiohttp import web
from aiohttp.web_protocol import RequestPayloadError
from typing_extensions import TypeVar

from redline.envelope import codec
from redline.envelope.auth import (
    AdminPolicy,
    ApiKeyPrincipal,
    AuthVerifier,
    HeaderNames,
    WorkspacePrincipal,
    header,
    required_header,
)
from redline.envelope.client_address import Network, client_address
from redline.envelope.errors import InvalidArgument, PermissionDenied, Unauthenticated
from redline.envelope.ratelimit import RateLimiter, Tier
from redline.proto import request_context

if TYPE_CHECKING:
    from typing_extensions import TypeForm

# An endpoint's request and response types. Defaults, so that `Endpoint` alone means one of any
# types; covariant, so that endpoints of different types make a list of endpoints. That is sound
# as they are used: an endpoint's handler is only given what its own `request` type decodes.
Req = TypeVar("Req", default=Any, covariant=True)
Res = TypeVar("Res", default=Any, covariant=True)
Data = TypeVar("Data")
First = TypeVar("First")
Second = TypeVar("Second")
Third = TypeVar("Third")
Service = TypeVar("Service")
Principal = TypeVar("Principal", bound="ApiKeyPrincipal | WorkspacePrincipal")

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB; endpoints that take files raise their own limit


class AuthLevel(Enum):
    NONE = "none"
    # No credentials, each request counted per client address in the signup tier: public
    # endpoints a stranger may call (send a login link, ask whether an email is verified).
    PUBLIC = "public"
    ADMIN = "admin"  # workspace creation: operator token, or open signup
    WORKSPACE = "workspace"
    API_KEY = "api_key"


class Style(Enum):
    STATUS = "status"  # {"result": {"status": "success", "message": ..., "data": ...}}
    PLAIN = "plain"  # {"result": {...}} (memory and workflow endpoints)


class Reply(msgspec.Struct, Generic[Data]):
    """Return this instead of bare data to choose the message or add fields beside `data`
    (such as `nextPageToken`)."""

    data: Data
    message: str | None = None
    extra: dict[str, Any] | None = None


def paged(
    data: Data, next_page_token: str | None, *, also_as_page_token: bool = False
) -> Reply[Data]:
    """A page of results; the token is absent on the last page."""
    if next_page_token is None:
        return Reply(data)
    extra = {"nextPageToken": next_page_token}
    if also_as_page_token:
        extra["pageToken"] = next_page_token
    return Reply(data, extra=extra)


@dataclass(frozen=True)
class Gate:
    """What every endpoint of an app needs to admit a request."""

    verifier: AuthVerifier
    headers: HeaderNames
    admin: AdminPolicy
    limiter: RateLimiter | None
    trusted_proxies: tuple[Network, ...] = ()
    # How many proxies in front of the service append to X-Forwarded-For (the gateway: one).
    trusted_proxy_hops: int = 1

    def address_of(self, request: web.Request) -> str:
        """The client address per-address limits count `request` against."""
        return client_address(request, self.trusted_proxies, self.trusted_proxy_hops)

    async def failed_check(self, address: str) -> None:
        """Count a failed check of credentials (or of a link's signature) from `address`;
        raise RESOURCE_EXHAUSTED once the address has used up its failures. Only failed checks
        wait: the address may be shared (a NAT, or claimed by someone else), and credentials
        that verify are served whoever else fails from it."""
        if self.limiter is not None:
            await self.limiter.check(Tier.AUTH_FAILURES, address)
            await self.limiter.count(Tier.AUTH_FAILURES, address)

    @asynccontextmanager
    async def refusals_counted(self, request: web.Request) -> AsyncIterator[None]:
        """Around a raw route's own check of what it was presented (a link's signature, a
        step's token, a provider's signature): a refusal counts as a failed check from the
        request's address, as the gate counts bad credentials."""
        try:
            yield
        except (Unauthenticated, PermissionDenied):
            await self.failed_check(self.address_of(request))
            raise


GATE = web.AppKey("redline_gate", Gate)


class Call:
    """The caller of one request, as handlers see it."""

    __slots__ = ("principal", "request")

    def __init__(
        self, request: web.Request, principal: ApiKeyPrincipal | WorkspacePrincipal | None
    ) -> None:
        self.request = request
        self.principal = principal

    @property
    def app(self) -> web.Application:
        return self.request.app

    @property
    def api_key(self) -> ApiKeyPrincipal:
        assert isinstance(self.principal, ApiKeyPrincipal), "endpoint is not API-key level"
        return self.principal

    @property
    def workspace(self) -> WorkspacePrincipal:
        assert isinstance(self.principal, WorkspacePrincipal), "endpoint is not workspace level"
        return self.principal


class Either(Generic[Res]):
    """An endpoint's answer that is one of several types, where msgspec cannot hold them in one
    union (a Struct and a map, say: one answer per request form). The schema is their `anyOf`."""

    __slots__ = ("types",)

    @overload
    def __init__(
        self: Either[First | Second], first: TypeForm[First], second: TypeForm[Second], /
    ) -> None: ...
    @overload
    def __init__(
        self: Either[First | Second | Third],
        first: TypeForm[First],
        second: TypeForm[Second],
        third: TypeForm[Third],
        /,
    ) -> None: ...
    def __init__(self, *types: Any) -> None:
        self.types = types


class Options(TypedDict, total=False):
    """What an endpoint built from a service method may set besides its path and auth level."""

    tier: Tier
    style: Style
    message: str
    summary: str
    tags: tuple[str, ...]
    max_body: int
    paged: bool
    user_tokens: bool


# What an endpoint's service method may be handed first: the principal its auth level yields.
_PRINCIPALS: dict[AuthLevel, type[ApiKeyPrincipal | WorkspacePrincipal]] = {
    AuthLevel.API_KEY: ApiKeyPrincipal,
    AuthLevel.WORKSPACE: WorkspacePrincipal,
}


def _is_union(annotation: Any) -> bool:
    return isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union


def _members(annotation: Any) -> tuple[Any, ...]:
    return typing.get_args(annotation) if _is_union(annotation) else (annotation,)


def _is_principal(annotation: Any) -> bool:
    return all(member in _PRINCIPALS.values() for member in _members(annotation))


def _admits(annotation: Any, principal: type[ApiKeyPrincipal | WorkspacePrincipal]) -> bool:
    return principal in _members(annotation)


def _response_of(returned: Any) -> Any:
    """The response type an endpoint declares for a method that returns `returned`: the data of a
    `Reply`, and the types of a union that msgspec cannot hold as one `Either`."""
    if typing.get_origin(returned) is Reply:
        (returned,) = typing.get_args(returned)
    if _is_union(returned):
        try:
            msgspec.json.Decoder(returned)
        except TypeError:
            return Either(*typing.get_args(returned))
    return returned


@dataclass(frozen=True)
class Endpoint(Generic[Req, Res]):
    """One POST route. `handler` answers with the declared `response`, or a `Reply` of it.

    `Endpoint.of` and `Endpoint.handled` take both types from the annotations of what answers,
    so they cannot differ from it. Built directly, mypy ties `handler` to the declared types only
    when they are given as type arguments: `Endpoint[Req, Res](path, handler, Req, Res)`.
    """

    path: str
    handler: Callable[[Call, Req], Awaitable[Res | Reply[Res]]]
    request: TypeForm[Req]
    response: TypeForm[Res] | Either[Res]
    auth: AuthLevel = AuthLevel.API_KEY
    tier: Tier = Tier.GENERAL
    style: Style = Style.STATUS
    message: str = "Success"
    summary: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)
    max_body: int = DEFAULT_MAX_BODY
    paged: bool = False  # the result carries `nextPageToken` beside `data`
    # Whether a user token (a JWT from /v2/auth/generate_token) may call this API-key endpoint.
    # Off by default: such tokens are handed to browsers, and configuration endpoints must need
    # the key's own auth token. Endpoints that turn it on act only within that user's access.
    user_tokens: bool = False

    # Built from a service method, called on `call.app[key]` with the principal its auth level
    # yields (API_KEY and WORKSPACE yield one, other levels none) and the decoded request. For a
    # method that takes no request, `request` names the type the body still decodes to.
    @overload
    @classmethod
    def of(
        cls,
        path: str,
        key: web.AppKey[Service],
        method: Callable[[Service, Principal, Req], Awaitable[Reply[Res]]],
        *,
        auth: AuthLevel = ...,
        **options: Unpack[Options],
    ) -> Endpoint[Req, Res]: ...
    @overload
    @classmethod
    def of(
        cls,
        path: str,
        key: web.AppKey[Service],
        method: Callable[[Service, Principal, Req], Awaitable[Res]],
        *,
        auth: AuthLevel = ...,
        **options: Unpack[Options],
    ) -> Endpoint[Req, Res]: ...
    @overload
    @classmethod
    def of(
        cls,
        path: str,
        key: web.AppKey[Service],
        method: Callable[[Service, Principal], Awaitable[Reply[Res]]],
        *,
        request: type[Req],
        auth: AuthLevel = ...,
        **options: Unpack[Options],
    ) -> Endpoint[Req, Res]: ...
    @overload
    @classmethod
    def of(
        cls,
        path: str,
        key: web.AppKey[Service],
        method: Callable[[Service, Principal], Awaitable[Res]],
        *,
        request: type[Req],
        auth: AuthLevel = ...,
        **options: Unpack[Options],
    ) -> Endpoint[Req, Res]: ...
    @overload
    @classmethod
    def of(
        cls,
        path: str,
        key: web.AppKey[Service],
        method: Callable[[Service, Req], Awaitable[Reply[Res]]],
        *,
        auth: Literal[AuthLevel.NONE, AuthLevel.PUBLIC, AuthLevel.ADMIN],
        **options: Unpack[Options],
    ) -> Endpoint[Req, Res]: ...
    @overload
    @classmethod
    def of(
        cls,
        path: str,
        key: web.AppKey[Service],
        method: Callable[[Service, Req], Awaitable[Res]],
        *,
        auth: Literal[AuthLevel.NONE, AuthLevel.PUBLIC, AuthLevel.ADMIN],
        **options: Unpack[Options],
    ) -> Endpoint[Req, Res]: ...
    @classmethod
    def of(
        cls,
        path: str,
        key: web.AppKey[Any],
        method: Callable[..., Awaitable[Any]],
        *,
        request: Any = None,
        auth: AuthLevel = AuthLevel.API_KEY,
        **options: Unpack[Options],
    ) -> Endpoint[Any, Any]:
        hints = typing.get_type_hints(method)
        _, *names = inspect.signature(method).parameters
        principal = _PRINCIPALS.get(auth)
        if principal is not None:
            if not names or not _admits(hints[names[0]], principal):
                raise TypeError(
                    f"{path}: {method.__qualname__} does not take a {principal.__name__}"
                )
            names = names[1:]
        if names and _is_principal(hints[names[0]]):
            raise TypeError(f"{path}: {auth} yields no principal for {method.__qualname__}")
        takes_request = bool(names)
        if takes_request:
            request = hints[names[0]]
        elif request is None:
            raise TypeError(f"{path}: {method.__qualname__} takes no request; name its type")
        principal_of = _principal_reader(auth)

        def handler(call: Call, data: Any) -> Awaitable[Any]:
            args = [] if principal_of is None else [principal_of(call)]
            if takes_request:
                args.append(data)
            return method(call.app[key], *args)

        handler.__name__ = method.__name__
        response = _response_of(hints["return"])
        return cls(path, handler, request, response, auth=auth, **options)

    # Built from a handler of its own, for a route that does more than hand the request on (reads
    # a header, shapes the answer): the request and response types are the handler's annotations.
    @overload
    @classmethod
    def handled(
        cls,
        path: str,
        handler: Callable[[Call, Req], Awaitable[Reply[Res]]],
        *,
        auth: AuthLevel = ...,
        **options: Unpack[Options],
    ) -> Endpoint[Req, Res]: ...
    @overload
    @classmethod
    def handled(
        cls,
        path: str,
        handler: Callable[[Call, Req], Awaitable[Res]],
        *,
        auth: AuthLevel = ...,
        **options: Unpack[Options],
    ) -> Endpoint[Req, Res]: ...
    @classmethod
    def handled(
        cls,
        path: str,
        handler: Callable[[Call, Any], Awaitable[Any]],
        *,
        auth: AuthLevel = AuthLevel.API_KEY,
        **options: Unpack[Options],
    ) -> Endpoint[Any, Any]:
        hints = typing.get_type_hints(handler)
        _, request_name = inspect.signature(handler).parameters
        response = _response_of(hints["return"])
        return cls(path, handler, hints[request_name], response, auth=auth, **options)


def _principal_reader(
    level: AuthLevel,
) -> Callable[[Call], ApiKeyPrincipal | WorkspacePrincipal] | None:
    if level is AuthLevel.API_KEY:
        return lambda call: call.api_key
    if level is AuthLevel.WORKSPACE:
        return lambda call: call.workspace
    return None


ENDPOINTS = web.AppKey("redline_endpoints", list[Endpoint])


async def _verify(
    level: AuthLevel, request: web.Request, gate: Gate
) -> tuple[ApiKeyPrincipal | WorkspacePrincipal, str]:
    """Check the credentials of `level`; return the principal and the key limits count against."""
    names = gate.headers
    if level is AuthLevel.API_KEY:
        api_key = required_header(request.headers, names.api_key)
        token = required_header(request.headers, names.auth_token)
        key_principal = await gate.verifier.verify_api_key(api_key, token)
        return key_principal, key_principal.api_key
    workspace_id = required_header(request.headers, names.workspace_id)
    token = required_header(request.headers, names.workspace_token)
    ws_principal = await gate.verifier.verify_workspace(workspace_id, token)
    return ws_principal, ws_principal.workspace_id


async def _admit(
    endpoint: Endpoint, request: web.Request, gate: Gate
) -> ApiKeyPrincipal | WorkspacePrincipal | None:
    """Authenticate and count the request against its limits; raise when either refuses."""
    limiter = gate.limiter
    if endpoint.auth is AuthLevel.NONE:
        return None
    address = gate.address_of(request)
    if endpoint.auth is AuthLevel.PUBLIC:
        if limiter is not None:
            await limiter.hit(Tier.SIGNUP, address)
        return None
    if endpoint.auth is AuthLevel.ADMIN:
        # Counted before the check, so guessing the operator token costs like creating.
        if limiter is not None:
            await limiter.hit(Tier.SIGNUP, address)
        gate.admin.check(header(request.headers, gate.headers.admin_token))
        return None
    try:
        principal, limit_key = await _verify(endpoint.auth, request, gate)
    except Unauthenticated:
        await gate.failed_check(address)
        raise
    if limiter is not None:
        await limiter.hit(endpoint.tier, limit_key)
    if (
        isinstance(principal, ApiKeyPrincipal)
        and principal.user_id is not None
        and not endpoint.user_tokens
    ):
        raise PermissionDenied("This endpoint needs the API key's auth token, not a user token.")
    return principal


async def _read_body(request: web.Request, limit: int) -> bytes:
    if request.content_length is not None and request.content_length > limit:
        raise web.HTTPRequestEntityTooLarge(max_size=limit, actual_size=request.content_length)
    try:
        body = await request.read()
    except RequestPayloadError as exc:
        # Say, a body that does not decode with its Content-Encoding. The connection's stream
        # is broken past this point: the answer ends it (`middleware.end_unread_body`).
        reason = str(exc).rsplit("\n", 1)[-1].strip()
        raise InvalidArgument(f"Request body cannot be read: {reason}") from None
    if len(body) > limit:
        raise web.HTTPRequestEntityTooLarge(max_size=limit, actual_size=len(body))
    return body


def http_handler(endpoint: Endpoint) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def handle(request: web.Request) -> web.StreamResponse:
        principal = await _admit(endpoint, request, request.app[GATE])
        if principal is not None:
            # Not reset here: the envelope middleware's scope around the request puts it back,
            # after the failure of a handler is logged with it.
            request_context.workspace_id.set(principal.workspace_id)
        body = await _read_body(request, endpoint.max_body)
        data = codec.decode_request(body, endpoint.request)
        result = await endpoint.handler(Call(request, principal), data)
        if endpoint.style is Style.PLAIN:
            payload = codec.plain_body(result)
        elif isinstance(result, Reply):
            payload = codec.success_body(
                result.data, result.message or endpoint.message, result.extra
            )
        else:
            payload = codec.success_body(result, endpoint.message)
        return web.Response(body=payload, content_type="application/json")

    handle.__name__ = getattr(endpoint.handler, "__name__", "handle")
    return handle


def add_endpoints(app: web.Application, endpoints: list[Endpoint]) -> None:
    """Register POST routes for `endpoints` and remember them for the OpenAPI document."""
    if ENDPOINTS not in app:
        app[ENDPOINTS] = []
    for endpoint in endpoints:
        app.router.add_post(endpoint.path, http_handler(endpoint))
        app[ENDPOINTS].append(endpoint)


__all__ = [
    "ENDPOINTS",
    "GATE",
    "AuthLevel",
    "Call",
    "Either",
    "Endpoint",
    "Gate",
    "InvalidArgument",
    "Options",
    "Reply",
    "Style",
    "add_endpoints",
    "http_handler",
    "paged",
]

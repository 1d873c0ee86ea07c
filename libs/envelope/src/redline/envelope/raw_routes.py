"""Routes that do not take the `{"data": …}` envelope: a file PUT to a signed link, a download, a
step's callback, a provider's inbound webhook, the pages a mailed link opens.

They are registered here with a description of what they take and answer, so that the OpenAPI
document lists them beside the envelope endpoints and every client, and every fuzzer, sees the
whole surface. Their failures are the same error envelope: the handlers raise the envelope's
errors and its middleware renders them.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web

Location = Literal["path", "query", "header"]
RawHandler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class Parameter:
    """One value a raw route reads from its path, query or headers; `schema` is a type msgspec
    describes (`str`, `int`, a `Literal`, an `Annotated` with bounds)."""

    name: str
    location: Location
    schema: Any = str
    required: bool = True
    description: str = ""


@dataclass(frozen=True)
class Content:
    """A body or an answer: its media type and, for JSON, the type it decodes to or is built
    from (None for bytes the route does not look into, such as a file or a page)."""

    media_type: str
    schema: Any = None


@dataclass(frozen=True)
class RawRoute:
    method: Literal["GET", "PUT", "POST"]
    path: str  # the OpenAPI path: `{name}` for each path parameter
    handler: RawHandler
    summary: str
    answers: dict[int, Content]  # the successful answers by status
    parameters: tuple[Parameter, ...] = ()
    body: tuple[Content, ...] = ()  # the media types the route takes; none: it reads no body
    tags: tuple[str, ...] = ()
    # The aiohttp route, where a path parameter carries a pattern (`{purpose:original|markdown}`).
    route_path: str | None = None
    operation_id: str = field(default="")

    @property
    def id(self) -> str:
        if self.operation_id:
            return self.operation_id
        slug = re.sub(r"[{}]", "", self.path.strip("/")).replace("/", "_")
        return f"{self.method.lower()}_{slug}"


RAW_ROUTES = web.AppKey("redline_raw_routes", list[RawRoute])


def add_raw_routes(app: web.Application, routes: list[RawRoute]) -> None:
    """Register `routes` and remember them for the OpenAPI document."""
    if RAW_ROUTES not in app:
        app[RAW_ROUTES] = []
    for route in routes:
        app.router.add_route(route.method, route.route_path or route.path, route.handler)
        app[RAW_ROUTES].append(route)

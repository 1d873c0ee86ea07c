"""An OpenAPI 3.1 document built from the registered endpoints' msgspec types, and a docs page.

Every endpoint added with `add_endpoints` appears here with its request and response schemas, auth
headers and error envelope, with no extra work by the service. Rules across a request's fields that
its Struct declares (`field_rules`) are stated in its schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import msgspec
from aiohttp import web

from redline.envelope import codec, field_rules
from redline.envelope.endpoint import ENDPOINTS, GATE, AuthLevel, Either, Endpoint, Style
from redline.envelope.errors import ERRORS_BY_CODE
from redline.envelope.openapi_links import add_links
from redline.envelope.raw_routes import RAW_ROUTES, Content, RawRoute

_REF = "#/components/schemas/{name}"

_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["status", "message"],
            "properties": {
                "status": {"type": "string", "enum": sorted(ERRORS_BY_CODE)},
                "message": {"type": "string"},
                "details": {"type": "object"},
            },
        }
    },
}


def _security_schemes(brand: str) -> dict[str, Any]:
    def key(name: str, description: str) -> dict[str, Any]:
        return {"type": "apiKey", "in": "header", "name": name, "description": description}

    return {
        "apiKey": key(f"x-{brand}-api-key", "API key"),
        "authToken": key(f"x-{brand}-auth-token", "Auth token of the API key, or a user token"),
        "workspaceId": key(f"x-{brand}-workspace-id", "Workspace id"),
        "workspaceToken": key(f"x-{brand}-workspace-auth-token", "Workspace auth token"),
        "adminToken": key(f"x-{brand}-admin-token", "Operator token (workspace creation)"),
    }


_SECURITY: dict[AuthLevel, list[dict[str, list[str]]]] = {
    AuthLevel.API_KEY: [{"apiKey": [], "authToken": []}],
    AuthLevel.WORKSPACE: [{"workspaceId": [], "workspaceToken": []}],
    AuthLevel.ADMIN: [{"adminToken": []}, {}],
    AuthLevel.NONE: [],
    AuthLevel.PUBLIC: [],
}


# The answer of any endpoint that fails: the error envelope.
_ERROR_ANSWER = {
    "description": "Failure envelope",
    "content": {"application/json": {"schema": {"$ref": _REF.format(name="Error")}}},
}


def _operation(
    endpoint: Endpoint, request: Any, response: Any, components: dict[str, Any]
) -> dict[str, Any]:
    data_required, body = _request_body(request, components)
    return {
        "operationId": endpoint.path.strip("/").replace("/", "_"),
        "summary": endpoint.summary or endpoint.path,
        "tags": list(endpoint.tags),
        "security": _SECURITY[endpoint.auth],
        "requestBody": {
            "required": data_required,
            "content": {"application/json": {"schema": body}},
        },
        "responses": {
            "200": {
                "description": "Success",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["result"],
                            "properties": {"result": _result(endpoint, response)},
                        }
                    }
                },
            },
            "default": _ERROR_ANSWER,
        },
    }


def _request_body(request: Any, components: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Whether an endpoint's request must carry `data`, and the schema of its body."""
    # The service reads a missing `data` as {}: where {} is refused, the schema says `data` is due.
    data_required = not _accepts_empty_object(request, components)
    body: dict[str, Any] = {
        "type": "object",
        "properties": {"data": request},
        "additionalProperties": False,
    }
    if data_required:
        body["required"] = ["data"]
    return data_required, body


def _result(endpoint: Endpoint, response: Any) -> Any:
    """The schema of an endpoint's `result`: its answer, in the success envelope unless plain."""
    if endpoint.style is Style.PLAIN:
        return response
    result: dict[str, Any] = {
        "type": "object",
        "required": ["status", "message", "data"],
        "properties": {
            "status": {"const": "success"},
            "message": {"type": "string"},
            "data": response,
        },
    }
    if endpoint.paged:
        result["properties"]["nextPageToken"] = {
            "type": "string",
            "description": "Token of the next page; absent on the last page",
        }
    return result


# What a raw body or answer that is not JSON looks like to a client: bytes, or a page of text.
_OPAQUE = {"type": "string", "format": "binary"}


def _raw_types(route: RawRoute) -> list[Any]:
    """The types of `route` that msgspec describes, in the order `_raw_operation` takes them."""
    contents = [*route.body, *route.answers.values()]
    return [p.schema for p in route.parameters] + [c.schema for c in contents if c.schema]


def _raw_content(content: Content, schemas: Iterator[Any]) -> dict[str, Any]:
    if content.schema:
        schema = next(schemas)
    else:  # any JSON value, or bytes the route does not look into
        schema = {} if content.media_type.endswith("json") else _OPAQUE
    return {content.media_type: {"schema": schema}}


def _raw_operation(route: RawRoute, built: list[Any]) -> dict[str, Any]:
    schemas = iter(built)
    parameters = [
        {
            "name": p.name,
            "in": p.location,
            "required": p.required or p.location == "path",
            "schema": next(schemas),
            **({"description": p.description} if p.description else {}),
        }
        for p in route.parameters
    ]
    operation: dict[str, Any] = {
        "operationId": route.id,
        "summary": route.summary,
        "tags": list(route.tags),
        # Not an envelope endpoint: no `{"data": …}` body, its credentials in its parameters.
        "x-redline-raw": True,
        "security": [],
        "parameters": parameters,
    }
    if route.body:
        content: dict[str, Any] = {}
        for body in route.body:
            content.update(_raw_content(body, schemas))
        operation["requestBody"] = {"required": True, "content": content}
    responses: dict[str, Any] = {}
    for status, answer in route.answers.items():
        responses[str(status)] = {"description": "Success", "content": {}}
        if answer.media_type:
            responses[str(status)]["content"] = _raw_content(answer, schemas)
    operation["responses"] = {**responses, "default": _ERROR_ANSWER}
    return operation


def _accepts_empty_object(schema: dict[str, Any], components: dict[str, Any]) -> bool:
    """Whether `{}` fits `schema` as far as required fields and declared rules tell."""
    ref = schema.get("$ref")
    if ref is not None:
        schema = components[ref.removeprefix(_REF.format(name=""))]
    rules = schema.get("allOf", [])
    return not (
        schema.get("required") or schema.get("minProperties") or any("anyOf" in r for r in rules)
    )


def _component_names(cls: type) -> tuple[str, str]:
    """The names msgspec gives `cls`'s component: its full import path when two share a name."""

    def normalize(name: str) -> str:
        return re.sub(r"[^a-zA-Z0-9.\-_]", "_", name)

    return normalize(f"{cls.__module__}.{cls.__qualname__}"), normalize(cls.__name__)


def _add_field_rules(types: list[Any], components: dict[str, Any]) -> None:
    for cls in field_rules.structs_within(types):
        rules = field_rules.rule_schema(cls)
        if not rules:
            continue
        full, short = _component_names(cls)
        component = components[full if full in components else short]
        note = rules.pop("description", "")
        if note:
            own = component.get("description")
            component["description"] = f"{own}\n\n{note}" if own else note
        component.update(rules)


# Python's anchors for the very start and end of the text. JSON Schema reads a `pattern` as
# ECMA-262, which has neither (`\Z` is a literal "Z" there, or a syntax error in unicode mode);
# its `^` and `$` mean exactly them, where Python's `$` would also take a trailing newline.
_PYTHON_ANCHORS = {"A": "^", "Z": "$"}
# Keywords whose values are data, not schemas, and those whose values map names to schemas.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs"})


def ecma_pattern(pattern: str) -> str:
    r"""`pattern`, a Python regular expression as msgspec checks it, in the ECMA-262 dialect JSON
    Schema validators read: `\A` and `\Z` outside a character class become `^` and `$`."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escaped = pattern[i + 1]
            out.append(
                _PYTHON_ANCHORS[escaped]
                if not in_class and escaped in _PYTHON_ANCHORS
                else char + escaped
            )
            i += 2
            continue
        out.append(char)
        i += 1
        if char == "[" and not in_class:
            in_class = True
            # A "]" first in a class (after an optional "^") is a literal, not its end.
            for literal in ("^", "]"):
                if pattern[i : i + 1] == literal:
                    out.append(literal)
                    i += 1
        elif char == "]" and in_class:
            in_class = False
    return "".join(out)


def _ecma_patterns(schema: Any) -> None:
    """Every `pattern` within `schema` (a schema, or a list of them) in ECMA-262, in place."""
    if isinstance(schema, list):
        for item in schema:
            _ecma_patterns(item)
        return
    if not isinstance(schema, dict):
        return
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        schema["pattern"] = ecma_pattern(pattern)
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            _ecma_patterns(list(value.values()))
        elif key not in _DATA_KEYWORDS:
            _ecma_patterns(value)


def _answers(endpoint: Endpoint) -> tuple[Any, ...]:
    response = endpoint.response
    return response.types if isinstance(response, Either) else (response,)


def build_openapi(
    endpoints: list[Endpoint], raw_routes: list[RawRoute] | None = None, *, brand: str = "redline"
) -> dict[str, Any]:
    raw_routes = raw_routes or []
    answers = [_answers(endpoint) for endpoint in endpoints]
    types: list[Any] = []
    for endpoint, answer in zip(endpoints, answers, strict=True):
        types.extend([endpoint.request, *answer])
    raw_types = [t for route in raw_routes for t in _raw_types(route)]
    schemas, components = msgspec.json.schema_components([*types, *raw_types], ref_template=_REF)
    _add_field_rules(types, components)
    _ecma_patterns([*schemas, *components.values()])
    components["Error"] = _ERROR_SCHEMA
    paths: dict[str, Any] = {}
    built = iter(schemas)
    for endpoint, answer in zip(endpoints, answers, strict=True):
        request = next(built)
        options = [next(built) for _ in answer]
        response = options[0] if len(options) == 1 else {"anyOf": options}
        paths[endpoint.path] = {"post": _operation(endpoint, request, response, components)}
    add_links(paths, components)
    for route in raw_routes:
        operation = _raw_operation(route, [next(built) for _ in _raw_types(route)])
        paths.setdefault(route.path, {})[route.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Redline API",
            "version": "2",
            "description": "Self-hostable collaboration backend. Every endpoint is a POST taking "
            '`{"data": {...}}`.',
        },
        "paths": paths,
        "components": {"schemas": components, "securitySchemes": _security_schemes(brand)},
    }


_DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Redline API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h2{border-bottom:1px solid #ddd;margin-top:2rem}code,pre{background:#f5f5f5;border-radius:4px}
pre{padding:.6rem;overflow:auto;font-size:13px}details{margin:.3rem 0}.auth{color:#666}
</style></head><body>
<h1>Redline API</h1>
<p>Every endpoint is <code>POST</code> with a JSON body <code>{"data": {...}}</code>, but for
the few that take a file, a provider's webhook or a link's signature as they come.
The machine-readable document is at <a href="/openapi.json">/openapi.json</a>.</p>
<div id="ops">Loading…</div>
<script>
fetch('/openapi.json').then(r => r.json()).then(doc => {
  const root = document.getElementById('ops'); root.textContent = '';
  const byTag = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[0]) || 'other';
      (byTag[tag] = byTag[tag] || []).push([method.toUpperCase(), path, op]);
    }
  }
  for (const [tag, ops] of Object.entries(byTag)) {
    const h = document.createElement('h2'); h.textContent = tag; root.appendChild(h);
    for (const [method, path, op] of ops) {
      const d = document.createElement('details');
      const s = document.createElement('summary');
      const auth = (op.security || []).map(x => Object.keys(x).join(' + ')).filter(Boolean);
      const code = document.createElement('code'); code.textContent = method + ' ' + path;
      const who = document.createElement('span'); who.className = 'auth';
      who.textContent = ' ' + auth.join(' or ');
      s.append(code, who); d.appendChild(s);
      const pre = document.createElement('pre');
      const content = part => part && Object.fromEntries(
        Object.entries(part.content || {}).map(([type, media]) => [type, media.schema]));
      const answers = Object.entries(op.responses).filter(([status]) => status !== 'default');
      const responses = Object.fromEntries(answers.map(([status, r]) => [status, content(r)]));
      pre.textContent = JSON.stringify(
        {parameters: op.parameters, request: content(op.requestBody), responses}, null, 2);
      d.appendChild(pre); root.appendChild(d);
    }
  }
  const c = document.createElement('h2'); c.textContent = 'Schemas'; root.appendChild(c);
  const pre = document.createElement('pre');
  pre.textContent = JSON.stringify(doc.components.schemas, null, 2); root.appendChild(pre);
});
</script></body></html>
"""


class _RenderedDocument:
    """The app's document, built on first request: routes are fixed once the app starts, and
    most processes (a test's app, a replica that is never asked) never need it."""

    def __init__(self) -> None:
        self.body: bytes | None = None


OPENAPI_DOC = web.AppKey("redline_openapi", _RenderedDocument)


def _render(app: web.Application) -> bytes:
    gate = app.get(GATE)
    # "x-<brand>-api-key", where the brand itself may contain hyphens.
    brand = gate.headers.api_key[0][2:].removesuffix("-api-key") if gate else "redline"
    return codec.encode(build_openapi(app.get(ENDPOINTS, []), app.get(RAW_ROUTES, []), brand=brand))


async def openapi_json(request: web.Request) -> web.Response:
    document = request.app[OPENAPI_DOC]
    if document.body is None:
        document.body = _render(request.app)
    return web.Response(body=document.body, content_type="application/json")


async def docs_page(request: web.Request) -> web.Response:
    return web.Response(text=_DOCS_PAGE, content_type="text/html")


def add_openapi_routes(app: web.Application) -> None:
    app[OPENAPI_DOC] = _RenderedDocument()
    app.router.add_get("/openapi.json", openapi_json)
    app.router.add_get("/docs", docs_page)

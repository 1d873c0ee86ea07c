"""Every route of /openapi.json answers as the document says: each route is called once with a
body built from its request schema (rules across fields met), and every answer must fit the
route's schema for it: a success its 200 response, a failure the error envelope.

Routes whose success needs state the builder cannot name (ids of things made earlier, a waiting
step, a file that decodes) are refused here; test_openapi_seeded_conformance makes each succeed
and checks that the two together cover every route.

Black-box, like the hostile-input sweep whose body builder, workspace and client it shares.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from redline.testing.api import ApiClient, Workspace
from tests.api.openapi_support import with_rules_met
from tests.api.test_hostile_input import api, call, doc, example, operations, ws

__all__ = ["api", "doc", "ws"]  # fixtures shared with the hostile-input sweep

_DOCUMENT = "urn:redline:openapi"


# Calls that make things come first and calls that remove them (or replace the caller's token)
# last, so that the calls between find what the seeded workspace and the first calls made.
_FIRST = ("add", "create", "dispatch", "ingest")
_LAST = ("delete", "remove", "cancel", "reset", "migrate", "move")


def in_call_order(paths: list[str]) -> list[str]:
    def phase(path: str) -> int:
        verb = path.rsplit("/", 1)[-1]
        return 0 if verb in _FIRST else 2 if verb in _LAST else 1

    # Removing an organization removes what the other removals name, and a reset replaces the
    # auth token every other call sends: these two go last of all.
    final = ("/v2/organizations/delete", "/v2/workspace/authtoken/reset")
    return sorted(
        paths, key=lambda path: (phase(path), final.index(path) if path in final else -1, path)
    )


def schema_validator(doc: dict[str, Any], *steps: str) -> jsonschema.Draft202012Validator:
    """A validator of the schema at `steps` within the document, its `$ref`s resolved there."""
    resource = Resource.from_contents(doc, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource(_DOCUMENT, resource)
    pointer = "/".join(step.replace("~", "~0").replace("/", "~1") for step in steps)
    return jsonschema.Draft202012Validator({"$ref": f"{_DOCUMENT}#/{pointer}"}, registry=registry)


def response_validator(
    doc: dict[str, Any], path: str, status: str
) -> jsonschema.Draft202012Validator:
    """A validator of `path`'s answer for `status`."""
    steps = ("paths", path, "post", "responses", status, "content", "application/json", "schema")
    return schema_validator(doc, *steps)


def _errors(validator: jsonschema.Draft202012Validator, instance: Any) -> list[str]:
    errors = validator.iter_errors(instance)
    return [f"at {'/'.join(map(str, e.absolute_path)) or '.'}: {e.message[:200]}" for e in errors]


def mismatches(doc: dict[str, Any], path: str, status: int, body: Any) -> list[str]:
    return _errors(response_validator(doc, path, "200" if status == 200 else "default"), body)


def request_mismatches(doc: dict[str, Any], path: str, data: Any) -> list[str]:
    """How the body `{"data": data}` breaks `path`'s request schema: a request the service takes
    must fit it, or a client generated from the document could not send it."""
    steps = ("paths", path, "post", "requestBody", "content", "application/json", "schema")
    return _errors(schema_validator(doc, *steps), {"data": data})


class Sweep(NamedTuple):
    refused: dict[str, str]  # path: the status and the start of the answer
    nonconforming: dict[str, list[str]]  # path: how its answer breaks its schema
    routes: list[str]


async def sweep(api: ApiClient, ws: Workspace, doc: dict[str, Any]) -> Sweep:
    """Every route called once with a body built from its request schema, rules met."""
    headers = {"key": ws.key_headers, "workspace": ws.workspace_headers, "": {}}
    known = {"apiKey": ws.api_key}

    def fill(schema: dict[str, Any]) -> Any:
        return example(doc, schema, known)

    routes = {path: (schema, credentials) for path, schema, credentials in operations(doc)}
    refused: dict[str, str] = {}
    nonconforming: dict[str, list[str]] = {}
    for path in in_call_order(list(routes)):
        schema, credentials = routes[path]
        data = with_rules_met(doc, schema, fill(schema), fill)
        status, body = await call(api, path, data, headers[credentials])
        if status != 200:
            refused[path] = f"{status} {json.dumps(body)[:160]}"
        found = mismatches(doc, path, status, body)
        if found:
            nonconforming[path] = found
    return Sweep(refused, nonconforming, list(routes))


async def test_every_success_fits_its_response_schema(
    api: ApiClient, ws: Workspace, doc: dict[str, Any]
) -> None:
    refused, nonconforming, routes = await sweep(api, ws, doc)
    assert not nonconforming, json.dumps(nonconforming, indent=1)
    # Refusals that follow from state (ids nothing made) are expected, and the seeded test makes
    # those routes succeed; a sweep where most calls fail checks little, so most must succeed.
    assert len(refused) < len(routes) / 2, json.dumps(refused, indent=1)

"""OpenAPI links: which calls can follow a successful call that makes things, with which ids.

Every endpoint is a POST whose ids travel in the body, so a client generated from the document
(or a stateful fuzzer) cannot guess that `/v2/organizations/add` makes the organization that
`/v2/organizations/get` reads. Links say it. They are drawn by one rule, from the document alone:

- a maker is an operation whose last path segment is add, create, dispatch or ingest;
- its 200 answer links to every other operation in its folder or below it (`/v2/organizations/add`
  → `/v2/organizations/get`, `/v2/organizations/documents/add`, …);
- the link fills each identifier the target takes at the top level of `data` (a field named
  `…Id`, or `…Ids` for a list of them) from what the maker's call is sure to hold under the same
  name: a required field of its request, of a required object in it, or of the first item of a
  required non-empty list in it (`organizations[0].organizationId`), else a required field of its
  answer (an id the service made). Types must agree.

A link with no id to fill is left out, and so is any id not sure to be there: a link promises
that the values it names exist after the maker's success.
"""

from __future__ import annotations

from typing import Any

_MAKERS = frozenset({"add", "create", "dispatch", "ingest"})
_REF_PREFIX = "#/components/schemas/"
_SCALARS = frozenset({"string", "integer"})

Schema = dict[str, Any]
# An identifier a maker's call is sure to hold: its runtime expression and its JSON type.
Known = dict[str, tuple[str, str]]


def add_links(paths: dict[str, Any], components: dict[str, Schema]) -> None:
    """Add the links of every maker in `paths` (an OpenAPI `paths` object), in place."""
    for source_path, item in paths.items():
        folder, _, verb = source_path.rpartition("/")
        if verb not in _MAKERS:
            continue
        operation = item["post"]
        known = _known_ids(operation, components)
        links: dict[str, Any] = {}
        for target_path, target_item in paths.items():
            if target_path == source_path or not target_path.startswith(folder + "/"):
                continue
            target = target_item["post"]
            body = _link_body(_request_data(target, components), known, components)
            if body:
                links[target["operationId"]] = {
                    "operationId": target["operationId"],
                    "requestBody": {"data": body},
                    "description": f"The ids {source_path} was called with or answered.",
                }
        if links:
            operation["responses"]["200"]["links"] = links


def _resolve(schema: Schema, components: dict[str, Schema]) -> Schema:
    while "$ref" in schema:
        schema = components[schema["$ref"].removeprefix(_REF_PREFIX)]
    return schema


def _scalar_type(schema: Schema, components: dict[str, Schema]) -> str | None:
    """ "string" or "integer" for a schema of that type (or that type or null), else None."""
    kinds = {o.get("type") for o in _options(schema, components)} - {"null"}
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind in _SCALARS else None


def _is_id(name: str) -> bool:
    return len(name) > 2 and name.endswith("Id")


def _request_data(operation: Schema, components: dict[str, Schema]) -> Schema:
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    return _resolve(body["properties"]["data"], components)


def _answer_data(operation: Schema, components: dict[str, Schema]) -> tuple[Schema, str]:
    """The schema of the answer's data and the JSON pointer to it in the answer's body."""
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
    result = _resolve(ok["properties"]["result"], components)
    if result.get("properties", {}).get("status") == {"const": "success"}:
        return _resolve(result["properties"]["data"], components), "/result/data"
    return result, "/result"


def _required_fields(schema: Schema) -> list[tuple[str, Schema]]:
    properties: dict[str, Schema] = schema.get("properties", {})
    return [(name, properties[name]) for name in schema.get("required", []) if name in properties]


def _known_ids(operation: Schema, components: dict[str, Schema]) -> Known:
    """The ids the maker's successful call holds, shallowest first."""
    known: Known = {}
    request = _request_data(operation, components)
    nested: list[tuple[str, Schema]] = []
    for name, field in _required_fields(request):
        kind = _scalar_type(field, components)
        if kind and _is_id(name):
            known[name] = (f"$request.body#/data/{name}", kind)
            continue
        field = _resolve(field, components)
        if field.get("type") == "object":
            nested.append((f"/data/{name}", field))
        elif field.get("type") == "array" and field.get("minItems", 0) >= 1:
            nested.append((f"/data/{name}/0", _resolve(field.get("items", {}), components)))
    for pointer, schema in nested:
        for name, field in _required_fields(schema):
            kind = _scalar_type(field, components)
            if kind and _is_id(name):
                known.setdefault(name, (f"$request.body#{pointer}/{name}", kind))
    answer, pointer = _answer_data(operation, components)
    for name, field in _required_fields(answer):
        kind = _scalar_type(field, components)
        if kind and _is_id(name):
            known.setdefault(name, (f"$response.body#{pointer}/{name}", kind))
    return known


def _link_body(target: Schema, known: Known, components: dict[str, Schema]) -> dict[str, Any]:
    """The target's ids that `known` fills, at the top level of `data` (one value, or a list of
    one where the target takes no single one of that name) and in the first item of its lists
    of objects (which a client merges into the item it sends)."""
    body: dict[str, Any] = {}
    properties: dict[str, Schema] = target.get("properties", {})
    for name, field in properties.items():
        value = _id_value(name, field, known, components)
        if value is not None and not (isinstance(value, list) and name[:-1] in properties):
            body[name] = value
            continue
        items = _object_items(field, components)
        if items is not None:
            first = _ids_of(items, known, components, lists=False)
            if first:
                body[name] = [first]
    return body


def _ids_of(
    schema: Schema, known: Known, components: dict[str, Schema], *, lists: bool
) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, field in schema.get("properties", {}).items():
        value = _id_value(name, field, known, components)
        if value is not None and (lists or not isinstance(value, list)):
            found[name] = value
    return found


def _id_value(name: str, field: Schema, known: Known, components: dict[str, Schema]) -> Any:
    """What fills the field `name`: a known id's expression, a list of it for a list of ids
    (`documentIds` from `documentId`), or None."""
    kind = _scalar_type(field, components)
    if kind and _is_id(name):
        return known[name][0] if name in known and known[name][1] == kind else None
    one = name.removesuffix("s")
    if not (name.endswith("Ids") and one in known):
        return None
    for option in _options(field, components):
        if option.get("type") == "array":
            kind = _scalar_type(option.get("items", {}), components)
            return [known[one][0]] if kind == known[one][1] else None
    return None


def _object_items(field: Schema, components: dict[str, Schema]) -> Schema | None:
    """The item schema of a list of objects (or of such a list or null), else None."""
    for option in _options(field, components):
        if option.get("type") == "array":
            items = _resolve(option.get("items", {}), components)
            return items if items.get("type") == "object" else None
    return None


def _options(field: Schema, components: dict[str, Schema]) -> list[Schema]:
    field = _resolve(field, components)
    return [_resolve(o, components) for o in field.get("anyOf", [field])]

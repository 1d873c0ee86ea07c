"""Reading the OpenAPI document the system serves, for the tests that check or use it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_PREFIX = "#/components/schemas/"


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` itself, or the component its `$ref` names."""
    ref = schema.get("$ref")
    if ref is None:
        return schema
    assert ref.startswith(_PREFIX), ref
    resolved: dict[str, Any] = doc["components"]["schemas"][ref.removeprefix(_PREFIX)]
    return resolved


Example = Callable[[dict[str, Any]], Any]


def with_rules_met(doc: dict[str, Any], schema: dict[str, Any], value: Any, fill: Example) -> Any:
    """`value` with each object's "give one of these groups" rules met, where no group is given
    yet: the first group's fields are added, each with `fill(field schema)`. Objects are changed
    in place."""
    schema = _member(doc, resolve(doc, schema), value)
    if isinstance(value, list):
        for item in value:
            with_rules_met(doc, schema.get("items", {}), item, fill)
    if not isinstance(value, dict):
        return value
    properties = schema.get("properties", {})
    for name, field in value.items():
        if name in properties:
            with_rules_met(doc, properties[name], field, fill)
    for rule in schema.get("allOf", []):
        groups = [option["required"] for option in rule.get("anyOf", [])]
        if groups and not any(all(value.get(n) not in (None, []) for n in g) for g in groups):
            for name in groups[0]:
                value[name] = with_rules_met(doc, properties[name], fill(properties[name]), fill)
    return value


def _member(doc: dict[str, Any], schema: dict[str, Any], value: Any) -> dict[str, Any]:
    """The member of a union schema that `value`, an object, was built as: the first whose
    constant fields (a tagged union's tag) `value` has; `schema` itself when it is no union."""
    for key in ("anyOf", "oneOf"):
        if key in schema and isinstance(value, dict):
            for option in (resolve(doc, o) for o in schema[key]):
                tags = {
                    n: p["const"] for n, p in option.get("properties", {}).items() if "const" in p
                }
                if option.get("type") == "object" and all(
                    value.get(n) == c for n, c in tags.items()
                ):
                    return option
    return schema


def is_raw(operation: dict[str, Any]) -> bool:
    """Whether `operation` takes its body as it comes rather than in the `{"data": …}` envelope
    (a file, a provider's webhook, a mailed link's page)."""
    return bool(operation.get("x-redline-raw"))


def envelope_paths(doc: dict[str, Any]) -> list[str]:
    """The paths of the envelope endpoints (each a POST taking `{"data": …}`)."""
    return sorted(
        path for path, item in doc["paths"].items() if "post" in item and not is_raw(item["post"])
    )


def raw_operations(doc: dict[str, Any]) -> list[str]:
    """The raw routes, as "METHOD /path"."""
    return sorted(
        f"{method.upper()} {path}"
        for path, item in doc["paths"].items()
        for method, operation in item.items()
        if is_raw(operation)
    )

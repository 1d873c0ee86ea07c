"""Reading the OpenAPI document the system serves, for the tests that check or use it."""

from __future__ import annotations

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

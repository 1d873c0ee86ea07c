"""Rules across the fields of a request Struct, declared on the class and stated in its schema.

Field types cannot say "give this field or that one"; the service checks such a rule, and the class
declares it too, so that the OpenAPI document states it and a client generated from the document
does not build requests the service refuses:

    class UpdateFolderAccess(Request):
        __openapi_any_of__ = (("accessType",), ("inheritFromParent",))

- `__openapi_any_of__`: groups of fields; every field of at least one group must be given.
- `__openapi_exclusive__`: groups of fields; at most one field of each group may be given.
- `__openapi_requires__`: groups of two or more fields; when the first is given, so must the
  others be (`(("documentId", "organizationId"),)`: a document is named within its organization).
- `__openapi_rule__`: a rule no schema keyword states, added to the schema's description.

Names are the fields' names on the wire.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import Any

import msgspec
import msgspec.inspect as mi

FieldGroups = tuple[tuple[str, ...], ...]

ANY_OF = "__openapi_any_of__"
EXCLUSIVE = "__openapi_exclusive__"
REQUIRES = "__openapi_requires__"
RULE = "__openapi_rule__"

# Requests read a null, and an empty list, as a field left out: only another value gives it.
_GIVEN: dict[str, Any] = {"not": {"enum": [None, []]}}


def _given(names: Iterable[str]) -> dict[str, Any]:
    names = list(names)
    return {"required": names, "properties": dict.fromkeys(names, _GIVEN)}


def _groups(cls: type, attribute: str) -> FieldGroups:
    groups = getattr(cls, attribute, ())
    if not (
        isinstance(groups, tuple)
        and all(isinstance(g, tuple) and g and all(isinstance(n, str) for n in g) for g in groups)
    ):
        raise TypeError(f"{cls.__name__}.{attribute} is not a tuple of tuples of field names")
    wire_names = {field.encode_name for field in msgspec.structs.fields(cls)}
    unknown = sorted({name for group in groups for name in group} - wire_names)
    if unknown:
        raise TypeError(f"{cls.__name__}.{attribute} names fields it does not have: {unknown}")
    return groups


def rule_schema(cls: type) -> dict[str, Any]:
    """The JSON Schema keywords for the rules `cls` declares: `allOf` (one entry per rule, so
    they combine with the fields' own keywords) and `description`; empty when it declares none."""
    rules: list[dict[str, Any]] = []
    any_of = _groups(cls, ANY_OF)
    if any_of:
        rules.append({"anyOf": [_given(group) for group in any_of]})
    for group in _groups(cls, EXCLUSIVE):
        rules.extend({"not": _given(pair)} for pair in combinations(group, 2))
    for first, *others in _groups(cls, REQUIRES):
        if not others:
            raise TypeError(f"{cls.__name__}.{REQUIRES} has a group of one field: {first}")
        rules.append({"if": _given([first]), "then": _given(others)})
    schema: dict[str, Any] = {"allOf": rules} if rules else {}
    note = getattr(cls, RULE, "")
    if note:
        schema["description"] = note
    return schema


def structs_within(types: Iterable[Any]) -> list[type]:
    """Every Struct class that `types` contain, at any depth (fields, items, union members)."""
    found: dict[type, None] = {}
    seen: set[int] = set()

    def walk(node: Any) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, mi.StructType):
            found[node.cls] = None
        for name in node.__struct_fields__:
            value = getattr(node, name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, mi.Type | mi.Field):
                    walk(item)

    for info in mi.multi_type_info(list(types)):
        walk(info)
    return list(found)

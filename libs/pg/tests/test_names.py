from __future__ import annotations

import pytest

from redline.pg.names import schema_name, table_name


@pytest.mark.parametrize("name", ["identity", "svc_2", "_private", "a" * 63])
def test_plain_lowercase_identifiers_are_schema_names(name: str) -> None:
    assert schema_name(name) == name


@pytest.mark.parametrize(
    "name",
    [
        "",
        "Identity",
        "2fa",
        "svc-2",
        "svc.outbox",
        "svc; DROP TABLE x",
        "svc ",
        "svc\n",
        "a" * 64,
        "é",
    ],
)
def test_anything_else_is_refused_before_reaching_sql(name: str) -> None:
    with pytest.raises(ValueError, match="invalid schema name"):
        schema_name(name)


def test_a_table_name_is_two_schema_names_joined_by_a_dot() -> None:
    assert table_name("notify.activity") == "notify.activity"
    for bad in ["activity", "notify.activity; DROP TABLE x", "notify.Activity", "a.b.c"]:
        with pytest.raises(ValueError, match="invalid"):
            table_name(bad)

"""The visibility rule as one table: every combination of who the caller is to the annotation,
how they reach the document and the annotation's visibility, through the Python predicate and
through its SQL twin in PostgreSQL, which must agree with the table and with each other."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

import asyncpg
import pytest

from redline.pg.conditions import Conditions
from redline.runtime.visibility import may_see, visibility_condition

USER = "ana"
VISIBILITIES = ("public", "organizationPrivate", "restricted")
# How the caller stands to the annotation.
ROLES = ("creator", "assignee", "named in visibleTo", "stranger")
# How the caller reaches the document: as a member (or a grant), or only because it is public.
ACCESS = ("member", "public document")


def expected(visibility: str, role: str, access: str) -> bool:
    """The rule as people state it."""
    if visibility == "public" or role == "creator":
        return True
    if visibility == "organizationPrivate":
        return access == "member"
    return role in ("assignee", "named in visibleTo")


CASES = list(itertools.product(VISIBILITIES, ROLES, ACCESS))


def _row(role: str) -> dict[str, object]:
    return {
        "creator_user_id": USER if role == "creator" else "someone",
        "assigned_user_id": USER if role == "assignee" else None,
        "visible_to": [USER] if role == "named in visibleTo" else ["other"],
    }


@pytest.mark.parametrize(("visibility", "role", "access"), CASES)
def test_the_predicate_follows_the_table(visibility: str, role: str, access: str) -> None:
    seen = may_see(
        USER, visibility=visibility, via_public=access == "public document", **_row(role)
    )  # type: ignore[arg-type]
    assert seen is expected(visibility, role, access)


def test_the_key_itself_sees_everything() -> None:
    for visibility, role, access in CASES:
        row = _row(role)
        assert may_see(None, visibility=visibility, via_public=access == "public document", **row)  # type: ignore[arg-type]


@pytest.fixture
async def conn(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(database_url)
    try:
        yield connection
    finally:
        await connection.close()


async def test_the_sql_twin_agrees_case_by_case(conn: asyncpg.Connection) -> None:
    for visibility, role, access in CASES:
        row = _row(role)
        document = "doc-public" if access == "public document" else "doc-member"
        b = Conditions()
        visibility_condition(b, USER, ["doc-public"])
        values = [
            b.param(visibility),
            b.param(row["creator_user_id"]),
            b.param(row["assigned_user_id"]),
            b.param(row["visible_to"]),
            b.param(document),
        ]
        # In a WHERE clause an unknown (NULL) is as good as false: compare it so.
        probe = (
            f"SELECT coalesce({b.conditions[0]}, false) FROM (SELECT {values[0]}::text"  # noqa: S608
            f" AS visibility, {values[1]}::text AS creator_user_id,"
            f" {values[2]}::text AS assigned_user_id, {values[3]}::text[] AS visible_to,"
            f" {values[4]}::text AS document_id) a"
        )
        seen = await conn.fetchval(probe, *b.params)
        assert seen is expected(visibility, role, access), (visibility, role, access)

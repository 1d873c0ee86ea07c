"""The SQL of activity records. Every statement is scoped by workspace and API key (and, for the
endpoints, the organization); the filter columns are derived from the record in one place.

Reads hand the stored record out as JSON text, so the service returns it untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from redline.notify.activities.models import Activity
from redline.pg import Connection, Pool
from redline.pg.conditions import Conditions
from redline.pg.pages import has_more, within_byte_budget

SCHEMA = "notify"

_COLUMNS = (
    "workspace_id",
    "api_key",
    "organization_id",
    "document_id",
    "id",
    "feature_type",
    "action_type",
    "action_user_id",
    "timestamp",
    "target_entity_id",
    "target_sub_entity_id",
    "immutable",
    "record",
)

# Column names are the constants above, never input.
_INSERT = (
    "INSERT INTO notify.activity ("  # noqa: S608
    + ", ".join(_COLUMNS)
    + ") VALUES ("
    + ", ".join(f"${i}" for i in range(1, len(_COLUMNS) + 1))
    + ") ON CONFLICT (api_key, id) DO NOTHING"
)

# Parameters are numbered by _COLUMNS: workspace_id $1, api_key $2, organization_id $3, id $5.
_KEY = ("workspace_id", "api_key", "organization_id", "id")
_UPDATE = (
    "UPDATE notify.activity SET "  # noqa: S608
    + ", ".join(f"{c} = ${i}" for i, c in enumerate(_COLUMNS, 1) if c not in _KEY)
    + " WHERE workspace_id = $1 AND api_key = $2 AND organization_id = $3 AND id = $5"
)


def _user_id(activity: Activity) -> str | None:
    user_id = (activity.actionUser or {}).get("userId")
    return user_id if isinstance(user_id, str) else None


def _values(workspace_id: str, activity: Activity) -> list[Any]:
    return [
        workspace_id,
        activity.metadata.apiKey,
        activity.metadata.organizationId,
        activity.metadata.documentId,
        activity.id,
        activity.featureType,
        activity.actionType,
        _user_id(activity),
        activity.timestamp,
        activity.targetEntityId,
        activity.targetSubEntityId,
        activity.immutable,
        activity,
    ]


async def insert(conn: Connection | Pool, workspace_id: str, activities: list[Activity]) -> None:
    """Insert the records whose (API key, id) is free; the others are left as stored."""
    await conn.executemany(_INSERT, [_values(workspace_id, a) for a in activities])


async def save(conn: Connection, workspace_id: str, activity: Activity) -> None:
    """Write back every column of a record read with `get_for_update`."""
    await conn.execute(_UPDATE, *_values(workspace_id, activity))


@dataclass(frozen=True)
class Stored:
    organization_id: str
    record: msgspec.Raw


async def by_ids(
    conn: Connection | Pool, workspace_id: str, api_key: str, ids: list[str]
) -> dict[str, Stored]:
    """The key's records with these ids, in whichever organization they are."""
    rows = await conn.fetch(
        "SELECT id, organization_id, record::text AS record FROM notify.activity"
        " WHERE workspace_id = $1 AND api_key = $2 AND id = ANY($3::text[])",
        workspace_id,
        api_key,
        ids,
    )
    return {r["id"]: Stored(r["organization_id"], msgspec.Raw(r["record"].encode())) for r in rows}


async def get_for_update(
    conn: Connection, workspace_id: str, api_key: str, organization_id: str, activity_id: str
) -> Activity | None:
    record = await conn.fetchval(
        "SELECT record FROM notify.activity"
        " WHERE workspace_id = $1 AND api_key = $2 AND organization_id = $3 AND id = $4"
        " FOR UPDATE",
        workspace_id,
        api_key,
        organization_id,
        activity_id,
    )
    return None if record is None else msgspec.convert(record, Activity)


@dataclass(frozen=True)
class Doomed:
    """The records a delete names: the filters given are ANDed; None is no filter."""

    organization_id: str
    ids: list[str] | None = None
    document_id: str | None = None
    target_entity_id: str | None = None


_DOOMED = (
    " WHERE workspace_id = $1 AND api_key = $2 AND organization_id = $3"
    " AND ($4::text[] IS NULL OR id = ANY($4::text[]))"
    " AND ($5::text IS NULL OR document_id = $5)"
    " AND ($6::text IS NULL OR target_entity_id = $6)"
)


async def delete_mutable(
    conn: Connection, workspace_id: str, api_key: str, which: Doomed
) -> tuple[list[str], list[str]]:
    """Delete the records `which` names that are not immutable; returns (deleted, kept
    immutable), each in id order."""
    params = (
        workspace_id,
        api_key,
        which.organization_id,
        which.ids,
        which.document_id,
        which.target_entity_id,
    )
    deleted = await conn.fetch(
        "DELETE FROM notify.activity" + _DOOMED + " AND NOT immutable RETURNING id",  # noqa: S608
        *params,
    )
    kept = await conn.fetch(
        "SELECT id FROM notify.activity" + _DOOMED + " ORDER BY id",  # noqa: S608
        *params,
    )
    return sorted(r["id"] for r in deleted), [r["id"] for r in kept]


# get -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cursor:
    """The last record of the previous page (keyset paging on timestamp, then id)."""

    timestamp: int
    id: str


@dataclass
class ActivityQuery:
    workspace_id: str
    api_key: str
    organization_id: str
    # At most `size` records and `byte_budget` bytes of them (redline.pg.pages).
    size: int
    byte_budget: int
    document_id: str | None = None
    target_entity_id: str | None = None
    feature_types: list[str] | None = None
    action_types: list[str] | None = None
    user_id: str | None = None
    ids: list[str] | None = None
    descending: bool = True
    after: Cursor | None = None


def page_statement(q: ActivityQuery) -> tuple[str, list[Any]]:
    """The get endpoint's one statement and its parameters."""
    b = Conditions()
    b.where("workspace_id = {}", q.workspace_id)
    b.where("api_key = {}", q.api_key)
    b.where("organization_id = {}", q.organization_id)
    if q.document_id is not None:
        b.where("document_id = {}", q.document_id)
    if q.target_entity_id is not None:
        b.where("target_entity_id = {}", q.target_entity_id)
    if q.feature_types:
        b.where("feature_type = ANY({}::text[])", q.feature_types)
    if q.action_types:
        b.where("action_type = ANY({}::text[])", q.action_types)
    if q.user_id is not None:
        b.where("action_user_id = {}", q.user_id)
    if q.ids:
        b.where("id = ANY({}::text[])", q.ids)
    # `desc` is the exact reverse of `asc`, so either reads one index range.
    direction, before = ("DESC", "<") if q.descending else ("ASC", ">")
    if q.after is not None:
        b.where(f"(timestamp, id) {before} ({{}}, {{}})", q.after.timestamp, q.after.id)
    page = (
        "SELECT id, timestamp, record::text AS record FROM notify.activity WHERE "  # noqa: S608
        + " AND ".join(b.conditions)
        + f" ORDER BY timestamp {direction}, id {direction} LIMIT {b.param(q.size + 1)}"
    )
    statement = within_byte_budget(
        page,
        order=f"q.timestamp {direction}, q.id {direction}",
        row_bytes="octet_length(q.record)",
        page_size=b.param(q.size),
        budget=b.param(q.byte_budget),
    )
    return statement, b.params


async def select_page(conn: Connection | Pool, q: ActivityQuery) -> tuple[list[Any], bool]:
    """The page's rows, and whether more follow."""
    statement, params = page_statement(q)
    rows = await conn.fetch(statement, *params)
    return rows, has_more(rows)

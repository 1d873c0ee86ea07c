"""SQL of advanced webhook endpoints: the `advanced_webhook_endpoint` rows of an API key."""

from __future__ import annotations

import datetime as dt
from typing import Any

import asyncpg
import msgspec

from redline.envelope.errors import AlreadyExists
from redline.pg import Connection, Pool

_COLUMNS = (
    "id, uid, url, description, filter_types, channels, disabled, rate_limit, metadata,"
    " secret_sealed, created_at, updated_at, switched_at, seq"
)


class EndpointRow(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    uid: str | None
    url: str
    description: str | None
    filter_types: list[str] | None
    channels: list[str] | None
    disabled: bool
    rate_limit: int | None
    metadata: dict[str, str] | None
    secret_sealed: bytes
    created_at: dt.datetime
    updated_at: dt.datetime
    # When `disabled` last changed; `created_at` until it first does.
    switched_at: dt.datetime
    seq: int


class NewEndpoint(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    api_key: str
    workspace_id: str
    uid: str | None
    url: str
    description: str | None
    filter_types: list[str] | None
    channels: list[str] | None
    disabled: bool
    rate_limit: int | None
    metadata: dict[str, str] | None
    secret_sealed: bytes


# Columns an update may set, by the name the rules use: never from the caller's text.
CHANGEABLE = {
    "url": "url",
    "description": "description",
    "filterTypes": "filter_types",
    "channels": "channels",
    "disabled": "disabled",
    "rateLimit": "rate_limit",
    "metadata": "metadata",
}


def _row(record: asyncpg.Record) -> EndpointRow:
    return EndpointRow(**dict(record))


async def insert(conn: Connection, endpoint: NewEndpoint) -> EndpointRow:
    try:
        record = await conn.fetchrow(
            "INSERT INTO identity.advanced_webhook_endpoint (id, api_key, workspace_id, uid, url,"  # noqa: S608 (constant)
            " description, filter_types, channels, disabled, rate_limit, metadata, secret_sealed)"
            f" VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING {_COLUMNS}",
            endpoint.id,
            endpoint.api_key,
            endpoint.workspace_id,
            endpoint.uid,
            endpoint.url,
            endpoint.description,
            endpoint.filter_types,
            endpoint.channels,
            endpoint.disabled,
            endpoint.rate_limit,
            endpoint.metadata,
            endpoint.secret_sealed,
        )
    except asyncpg.UniqueViolationError:
        raise AlreadyExists(
            "An advanced webhook endpoint with this uid already exists for the API key."
        ) from None
    assert record is not None
    return _row(record)


async def find(conn: Connection | Pool, api_key: str, ref: str) -> EndpointRow | None:
    """The key's endpoint whose id, or else uid, is `ref`."""
    record = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM identity.advanced_webhook_endpoint"  # noqa: S608 (constant)
        " WHERE api_key = $1 AND (id = $2 OR uid = $2) ORDER BY id = $2 DESC LIMIT 1",
        api_key,
        ref,
    )
    return None if record is None else _row(record)


async def count(conn: Connection, api_key: str) -> int:
    value = await conn.fetchval(
        "SELECT count(*) FROM identity.advanced_webhook_endpoint WHERE api_key = $1", api_key
    )
    return int(value)


async def update(conn: Connection, endpoint_id: str, changes: dict[str, Any]) -> EndpointRow:
    """Set the changed columns (keys of CHANGEABLE) of one endpoint."""
    columns = [CHANGEABLE[name] for name in changes]
    assignments = ", ".join(f"{column} = ${i}" for i, column in enumerate(columns, start=2))
    if "disabled" in changes:
        # The right-hand side reads the row as it was before this statement.
        given = columns.index("disabled") + 2
        assignments += (
            f", switched_at = CASE WHEN disabled IS DISTINCT FROM ${given}"
            " THEN now() ELSE switched_at END"
        )
    record = await conn.fetchrow(
        f"UPDATE identity.advanced_webhook_endpoint SET {assignments}, updated_at = now()"  # noqa: S608 (CHANGEABLE's columns)
        f" WHERE id = $1 RETURNING {_COLUMNS}",
        endpoint_id,
        *changes.values(),
    )
    assert record is not None
    return _row(record)


async def delete(conn: Connection, endpoint_id: str) -> None:
    await conn.execute("DELETE FROM identity.advanced_webhook_endpoint WHERE id = $1", endpoint_id)


async def page(
    conn: Connection | Pool, api_key: str, after: int | None, before: int | None, limit: int
) -> list[EndpointRow]:
    """Up to `limit` endpoints of the key in creation order: the first ones, those after the
    endpoint numbered `after`, or the last ones before the one numbered `before`."""
    if before is not None:
        records = await conn.fetch(
            f"SELECT {_COLUMNS} FROM identity.advanced_webhook_endpoint"  # noqa: S608 (constant)
            " WHERE api_key = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3",
            api_key,
            before,
            limit,
        )
        return [_row(r) for r in reversed(records)]
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM identity.advanced_webhook_endpoint"  # noqa: S608 (constant)
        " WHERE api_key = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        api_key,
        after or 0,
        limit,
    )
    return [_row(r) for r in records]


async def exists_before(conn: Connection | Pool, api_key: str, seq: int) -> bool:
    found: bool = await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM identity.advanced_webhook_endpoint"
        " WHERE api_key = $1 AND seq < $2)",
        api_key,
        seq,
    )
    return found


async def all_of_key(conn: Connection | Pool, api_key: str) -> list[EndpointRow]:
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM identity.advanced_webhook_endpoint"  # noqa: S608 (constant)
        " WHERE api_key = $1 ORDER BY seq",
        api_key,
    )
    return [_row(r) for r in records]

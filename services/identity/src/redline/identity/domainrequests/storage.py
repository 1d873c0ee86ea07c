"""SQL of domain requests (`identity.domain_request`)."""

from __future__ import annotations

import asyncpg

from redline.identity.domainrequests.models import DomainRequest
from redline.pg import Connection, Pool

_COLUMNS = (
    "request_id, domain, organization_id, client_document_id, status,"
    " (extract(epoch FROM created_at) * 1000)::bigint AS requested_at,"
    " (extract(epoch FROM decided_at) * 1000)::bigint AS decided_at"
)


def _request(r: asyncpg.Record) -> DomainRequest:
    return DomainRequest(
        id=r["request_id"],
        domain=r["domain"],
        organizationId=r["organization_id"],
        clientDocumentId=r["client_document_id"],
        status=r["status"],
        requestedAt=r["requested_at"],
        decidedAt=r["decided_at"],
    )


async def open_request(
    conn: Connection, api_key: str, domain: str, organization_id: str, document_id: str
) -> DomainRequest | None:
    row = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM identity.domain_request"  # noqa: S608 (a constant)
        " WHERE api_key = $1 AND domain = $2 AND organization_id = $3"
        " AND client_document_id = $4 AND status = 'pending'",
        api_key,
        domain,
        organization_id,
        document_id,
    )
    return None if row is None else _request(row)


async def count_open(conn: Connection, api_key: str) -> int:
    found: int = await conn.fetchval(
        "SELECT count(*) FROM identity.domain_request WHERE api_key = $1 AND status = 'pending'",
        api_key,
    )
    return found


async def insert_request(
    conn: Connection,
    api_key: str,
    request_id: str,
    domain: str,
    organization_id: str,
    document_id: str,
) -> DomainRequest:
    row = await conn.fetchrow(
        "INSERT INTO identity.domain_request (api_key, request_id, domain, organization_id,"  # noqa: S608
        " client_document_id, status) VALUES ($1, $2, $3, $4, $5, 'pending')"
        f" RETURNING {_COLUMNS}",
        api_key,
        request_id,
        domain,
        organization_id,
        document_id,
    )
    assert row is not None
    return _request(row)


async def open_requests(conn: Connection | Pool, api_key: str) -> list[DomainRequest]:
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} FROM identity.domain_request"  # noqa: S608 (a constant)
        " WHERE api_key = $1 AND status = 'pending' ORDER BY created_at, request_id",
        api_key,
    )
    return [_request(r) for r in rows]


async def lock_request(conn: Connection, api_key: str, request_id: str) -> DomainRequest | None:
    row = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM identity.domain_request"  # noqa: S608 (a constant)
        " WHERE api_key = $1 AND request_id = $2 FOR UPDATE",
        api_key,
        request_id,
    )
    return None if row is None else _request(row)


async def decide_request(
    conn: Connection, api_key: str, request_id: str, status: str
) -> DomainRequest:
    row = await conn.fetchrow(
        "UPDATE identity.domain_request SET status = $3, decided_at = now()"  # noqa: S608
        f" WHERE api_key = $1 AND request_id = $2 RETURNING {_COLUMNS}",
        api_key,
        request_id,
        status,
    )
    assert row is not None
    return _request(row)

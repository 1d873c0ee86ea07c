"""SQL of document migrations: the job rows, and identity's own document data to move."""

from __future__ import annotations

import asyncpg
import msgspec

from redline.identity.migration.models import MigrationStatus
from redline.pg import Connection, Pool


class MigrationRow(msgspec.Struct, frozen=True):
    api_key: str
    migration_id: str
    organization_id: str
    document_id: str
    new_document_id: str
    status: MigrationStatus
    failure_reason: str | None
    participants: list[str]
    checks: dict[str, bool]
    moves: dict[str, int]


_SELECT_ACTIVE = """
SELECT api_key, migration_id, organization_id, document_id, new_document_id, status,
       failure_reason, participants, checks, moves
FROM identity.document_migration
WHERE api_key = $1 AND organization_id = $2 AND document_id = $3
  AND status IN ('pending', 'in_progress')
"""

_SELECT_ONE = """
SELECT api_key, migration_id, organization_id, document_id, new_document_id, status,
       failure_reason, participants, checks, moves
FROM identity.document_migration
WHERE api_key = $1 AND migration_id = $2
"""


def _row(record: asyncpg.Record) -> MigrationRow:
    return MigrationRow(**{key: record[key] for key in MigrationRow.__struct_fields__})


async def insert(conn: Connection, row: MigrationRow) -> bool:
    """Insert a new job; False when the document already has an unfinished one.

    ON CONFLICT rather than catching the unique violation: the caller goes on in the same
    transaction (to read the job that won), which a failed statement would have aborted.
    """
    status = await conn.execute(
        "INSERT INTO identity.document_migration (api_key, migration_id, organization_id,"
        " document_id, new_document_id, status, participants)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7)"
        " ON CONFLICT (api_key, organization_id, document_id)"
        " WHERE status IN ('pending', 'in_progress') DO NOTHING",
        row.api_key,
        row.migration_id,
        row.organization_id,
        row.document_id,
        row.new_document_id,
        row.status,
        row.participants,
    )
    return bool(status == "INSERT 0 1")


async def active_for_document(
    conn: Connection | Pool, api_key: str, organization_id: str, document_id: str
) -> MigrationRow | None:
    record = await conn.fetchrow(
        _SELECT_ACTIVE,
        api_key,
        organization_id,
        document_id,
    )
    return None if record is None else _row(record)


async def get(
    conn: Connection | Pool, api_key: str, migration_id: str, *, for_update: bool = False
) -> MigrationRow | None:
    record = await conn.fetchrow(
        _SELECT_ONE + " FOR UPDATE" if for_update else _SELECT_ONE,
        api_key,
        migration_id,
    )
    return None if record is None else _row(record)


async def save_progress(conn: Connection, row: MigrationRow) -> None:
    await conn.execute(
        "UPDATE identity.document_migration SET status = $3, failure_reason = $4, checks = $5,"
        " moves = $6, updated_at = now() WHERE api_key = $1 AND migration_id = $2",
        row.api_key,
        row.migration_id,
        row.status,
        row.failure_reason,
        row.checks,
        row.moves,
    )


# identity's own document data ------------------------------------------------------------------


async def holds_document(
    conn: Connection, api_key: str, organization_id: str, document_id: str
) -> bool:
    found = await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM identity.document"
        "  WHERE api_key = $1 AND organization_id = $2 AND document_id = $3)"
        " OR EXISTS (SELECT 1 FROM identity.access_grant WHERE api_key = $1"
        "  AND organization_id = $2 AND resource_type = 'document' AND resource_id = $3)",
        api_key,
        organization_id,
        document_id,
    )
    return bool(found)


async def move_document(
    conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
) -> int:
    documents = await conn.execute(
        "UPDATE identity.document SET document_id = $4, updated_at = now()"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = $3",
        api_key,
        organization_id,
        old_id,
        new_id,
    )
    grants = await conn.execute(
        "UPDATE identity.access_grant SET resource_id = $4, updated_at = now()"
        " WHERE api_key = $1 AND organization_id = $2 AND resource_type = 'document'"
        " AND resource_id = $3",
        api_key,
        organization_id,
        old_id,
        new_id,
    )
    invitations = await _move_invitations(conn, api_key, organization_id, old_id, new_id)
    return int(documents.split()[-1]) + int(grants.split()[-1]) + invitations


async def _move_invitations(
    conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
) -> int:
    """Invitations to the document follow it; where the new id already has an invitation of the
    same address, that one stays and the old one goes."""
    await conn.execute(
        "DELETE FROM identity.invitation i WHERE api_key = $1 AND organization_id = $2"
        " AND invite_type = 'doc_user' AND resource_id = $3 AND EXISTS ("
        "   SELECT 1 FROM identity.invitation n WHERE n.api_key = $1"
        "   AND n.organization_id = $2 AND n.invite_type = 'doc_user'"
        "   AND n.resource_id = $4 AND n.email = i.email)",
        api_key,
        organization_id,
        old_id,
        new_id,
    )
    moved = await conn.execute(
        "UPDATE identity.invitation SET resource_id = $4, updated_at = now()"
        " WHERE api_key = $1 AND organization_id = $2 AND invite_type = 'doc_user'"
        " AND resource_id = $3",
        api_key,
        organization_id,
        old_id,
        new_id,
    )
    return int(moved.split()[-1])


class IdentityDocuments:
    """Identity's document data as the migration participant sees it."""

    async def holds_document(
        self, conn: Connection, api_key: str, organization_id: str, document_id: str
    ) -> bool:
        return await holds_document(conn, api_key, organization_id, document_id)

    async def move_document(
        self, conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
    ) -> int:
        return await move_document(conn, api_key, organization_id, old_id, new_id)

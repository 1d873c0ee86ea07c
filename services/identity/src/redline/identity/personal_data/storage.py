"""SQL of personal data erasure jobs."""

from __future__ import annotations

import datetime

import asyncpg
import msgspec

from redline.identity.personal_data.models import ErasureStatus
from redline.pg import Connection, Pool


class ErasureRow(msgspec.Struct, frozen=True):
    api_key: str
    job_id: str
    workspace_id: str
    user_ids: list[str]
    organization_ids: list[str] | None
    status: ErasureStatus
    participants: list[str]
    reports: dict[str, int]
    last_report_at: datetime.datetime | None


_COLUMNS = ", ".join(ErasureRow.__struct_fields__)
# Column names come from ErasureRow's fields, never from input.
_SELECT = f"SELECT {_COLUMNS} FROM identity.personal_data_erasure"  # noqa: S608


def _row(record: asyncpg.Record) -> ErasureRow:
    return ErasureRow(**{key: record[key] for key in ErasureRow.__struct_fields__})


async def insert(conn: Connection, row: ErasureRow) -> None:
    await conn.execute(
        "INSERT INTO identity.personal_data_erasure (api_key, job_id, workspace_id, user_ids,"
        " organization_ids, status, participants) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        row.api_key,
        row.job_id,
        row.workspace_id,
        row.user_ids,
        row.organization_ids,
        row.status,
        row.participants,
    )


async def get(
    conn: Connection | Pool, api_key: str, job_id: str, *, for_update: bool = False
) -> ErasureRow | None:
    statement = _SELECT + " WHERE api_key = $1 AND job_id = $2"
    record = await conn.fetchrow(
        statement + " FOR UPDATE" if for_update else statement, api_key, job_id
    )
    return None if record is None else _row(record)


async def save_report(conn: Connection, row: ErasureRow) -> None:
    await conn.execute(
        "UPDATE identity.personal_data_erasure SET status = $3, reports = $4,"
        " last_report_at = now() WHERE api_key = $1 AND job_id = $2",
        row.api_key,
        row.job_id,
        row.status,
        row.reports,
    )


async def claim_overdue(conn: Connection, older_than_s: float, limit: int) -> list[ErasureRow]:
    """Unfinished jobs whose services were last asked more than `older_than_s` ago, locked so
    one replica asks again; they count as asked now."""
    records = await conn.fetch(
        f"""
        WITH due AS (
            SELECT api_key, job_id FROM identity.personal_data_erasure
            WHERE status <> 'completed'
              AND requested_at < now() - make_interval(secs => $1)
            ORDER BY requested_at
            LIMIT $2
            FOR UPDATE SKIP LOCKED
        )
        UPDATE identity.personal_data_erasure e SET requested_at = now()
        FROM due WHERE e.api_key = due.api_key AND e.job_id = due.job_id
        RETURNING {", ".join("e." + c for c in ErasureRow.__struct_fields__)}
        """,  # noqa: S608 (column names come from ErasureRow)
        older_than_s,
        limit,
    )
    return [_row(record) for record in records]

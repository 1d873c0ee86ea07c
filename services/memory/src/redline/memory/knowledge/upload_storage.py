"""The knowledge base's SQL for upload URLs: one row per URL handed out, until its file is
uploaded and then ingested.

Statements built with f-strings (`noqa: S608`) interpolate only this module's own table and
column names; every value is a parameter.
"""

from __future__ import annotations

import msgspec

from redline.pg import Connection


class UploadRow(msgspec.Struct, kw_only=True):
    upload_id: str
    workspace_id: str
    api_key: str
    organization_id: str | None
    document_id: str | None
    mime_type: str
    file_size: int
    file_name: str | None
    file_ref: str
    blob_key: str
    created_at: int
    expires_at: int
    uploaded_at: int | None = None
    uploaded_size: int | None = None
    sha256: str | None = None
    source_id: str | None = None


async def insert_upload(conn: Connection, upload: UploadRow, max_outstanding: int) -> bool:
    """Insert `upload` unless its workspace already holds `max_outstanding` live URLs (neither
    ingested nor expired). Counted under a lock of the workspace, so concurrent calls cannot
    both take the last place."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('memory.upload:' || $1, 0))",
        upload.workspace_id,
    )
    outstanding = await conn.fetchval(
        "SELECT count(*) FROM memory.upload"
        " WHERE workspace_id = $1 AND source_id IS NULL AND expires_at >= $2",
        upload.workspace_id,
        upload.created_at,
    )
    if outstanding >= max_outstanding:
        return False
    fields = upload.__struct_fields__
    await conn.execute(
        f"INSERT INTO memory.upload ({', '.join(fields)})"  # noqa: S608
        f" VALUES ({', '.join(f'${i + 1}' for i in range(len(fields)))})",
        *(getattr(upload, name) for name in fields),
    )
    return True


async def upload(conn: Connection, upload_id: str) -> UploadRow | None:
    record = await conn.fetchrow("SELECT * FROM memory.upload WHERE upload_id = $1", upload_id)
    return None if record is None else msgspec.convert(dict(record), UploadRow)


async def upload_by_ref(conn: Connection, file_ref: str) -> UploadRow | None:
    record = await conn.fetchrow(
        "SELECT * FROM memory.upload WHERE file_ref = $1 FOR UPDATE", file_ref
    )
    return None if record is None else msgspec.convert(dict(record), UploadRow)


async def mark_uploaded(
    conn: Connection, upload_id: str, blob_key: str, size: int, sha256: str, now_ms: int
) -> bool:
    """Record the one PUT an upload URL takes, its file stored under `blob_key`; False if the
    URL was used or has expired."""
    updated = await conn.fetchval(
        "UPDATE memory.upload SET uploaded_at = $2, uploaded_size = $3, sha256 = $4,"
        " blob_key = $5"
        " WHERE upload_id = $1 AND uploaded_at IS NULL AND expires_at >= $2"
        " RETURNING upload_id",
        upload_id,
        now_ms,
        size,
        sha256,
        blob_key,
    )
    return updated is not None


async def mark_ingested(conn: Connection, upload_id: str, source_id: str) -> None:
    await conn.execute(
        "UPDATE memory.upload SET source_id = $2 WHERE upload_id = $1", upload_id, source_id
    )

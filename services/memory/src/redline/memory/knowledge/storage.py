"""The knowledge base's SQL: sources (also the ingest queue), chunks and rules; upload URLs are
in `upload_storage`.

Statements built with f-strings (`noqa: S608`) interpolate only this module's own table and
column names; every value is a parameter.
"""

from __future__ import annotations

import msgspec

from redline.pg import LIVE_HOLDERS, Connection
from redline.pg.documents import move_document_rows

SCHEMA = "memory"
# Workers LISTEN here; a new source NOTIFYs, so it is taken up at once.
NOTIFY_CHANNEL = "redline_memory_ingest"


class SourceRow(msgspec.Struct, kw_only=True):
    api_key: str
    source_id: str
    workspace_id: str
    organization_id: str | None
    document_id: str | None
    source_type: str
    file_name: str | None
    mime_type: str
    file_size: int
    sha256: str
    blob_key: str
    status: str
    uploaded_at: int
    started_at: int
    updated_at: int
    failure_reason: str | None = None
    failure_detail: str | None = None
    chunk_count: int | None = None
    rule_count: int | None = None
    attempts: int = 0
    # The content revision (decisions: knowledge update).
    version: int = 1


class ChunkRow(msgspec.Struct, kw_only=True):
    chunk_index: int
    text: str
    page: int | None = None
    sheet: str | None = None
    heading: str | None = None


class RuleRow(msgspec.Struct, kw_only=True):
    source_id: str
    rule_index: int
    content: str
    category: str | None


class RecentChunk(msgspec.Struct, kw_only=True):
    source_id: str
    text: str


# sources ---------------------------------------------------------------------------------------


async def insert_source(conn: Connection, source: SourceRow) -> None:
    fields = [name for name in source.__struct_fields__ if name != "attempts"]
    await conn.execute(
        f"INSERT INTO memory.source ({', '.join(fields)})"  # noqa: S608
        f" VALUES ({', '.join(f'${i + 1}' for i in range(len(fields)))})",
        *(getattr(source, name) for name in fields),
    )
    await conn.execute("SELECT pg_notify($1, $2)", NOTIFY_CHANNEL, source.source_id)


_SOURCE_COLUMNS = ", ".join(SourceRow.__struct_fields__)


async def source(conn: Connection, api_key: str, source_id: str) -> SourceRow | None:
    record = await conn.fetchrow(
        f"SELECT {_SOURCE_COLUMNS} FROM memory.source WHERE api_key = $1 AND source_id = $2",  # noqa: S608
        api_key,
        source_id,
    )
    return None if record is None else msgspec.convert(dict(record), SourceRow)


async def sources_by_id(conn: Connection, source_id: str) -> list[SourceRow]:
    """Sources of any API key with this id (ids are random, so one at most in practice): for
    signed links, whose signature then says which tenant's it is."""
    records = await conn.fetch(
        f"SELECT {_SOURCE_COLUMNS} FROM memory.source WHERE source_id = $1",  # noqa: S608
        source_id,
    )
    return [msgspec.convert(dict(r), SourceRow) for r in records]


async def count_completed(conn: Connection, api_key: str, source_ids: list[str] | None) -> int:
    counted: int = await conn.fetchval(
        "SELECT count(*) FROM memory.source WHERE api_key = $1 AND status = 'completed'"
        " AND ($2::text[] IS NULL OR source_id = ANY($2))",
        api_key,
        source_ids,
    )
    return counted


async def recent_sources(conn: Connection, api_key: str, limit: int) -> list[SourceRow]:
    records = await conn.fetch(
        f"SELECT {_SOURCE_COLUMNS} FROM memory.source WHERE api_key = $1"  # noqa: S608
        " ORDER BY uploaded_at DESC, source_id DESC LIMIT $2",
        api_key,
        limit,
    )
    return [msgspec.convert(dict(r), SourceRow) for r in records]


# Sources leased by a process that died are free now, for the claims that follow.
_FREE_DEAD_HOLDERS = f"""
UPDATE memory.source SET lease_until = NULL, holder = NULL
 WHERE status = 'processing' AND lease_until > now() AND holder IS NOT NULL
   AND holder NOT IN ({LIVE_HOLDERS})
"""  # noqa: S608 (constant)


async def free_dead_holders(conn: Connection) -> None:
    """Free the sources of processes that died (`redline.pg.holders`); run now and then, not
    with every claim (`DeadHolderSweeps`)."""
    await conn.execute(_FREE_DEAD_HOLDERS)


async def claim_source(conn: Connection, lease_s: float, holder: int) -> SourceRow | None:
    """Lease a source no live worker holds to the process numbered `holder`, counting the
    attempt: one of the workspace whose last turn is the oldest (a workspace never served
    first), and within it the longest waiting. Workspaces with waiting files so take turns,
    one file each. A source whose worker's process died is free once `free_dead_holders` has
    run, else when its lease runs out."""
    record = await conn.fetchrow(
        f"""
        WITH next AS (
            SELECT s.api_key, s.source_id, s.workspace_id FROM memory.source s
              LEFT JOIN memory.ingest_turn t USING (workspace_id)
             WHERE s.status = 'processing'
               AND (s.lease_until IS NULL OR s.lease_until < now())
             ORDER BY t.claimed_at NULLS FIRST, s.lease_until NULLS FIRST, s.started_at
             LIMIT 1 FOR UPDATE OF s SKIP LOCKED
        ), turn AS (
            INSERT INTO memory.ingest_turn (workspace_id, claimed_at)
            SELECT workspace_id, clock_timestamp() FROM next
            ON CONFLICT (workspace_id) DO UPDATE SET claimed_at = excluded.claimed_at
        )
        UPDATE memory.source AS s
           SET lease_until = now() + make_interval(secs => $1), attempts = s.attempts + 1,
               holder = $2
          FROM next
         WHERE s.api_key = next.api_key AND s.source_id = next.source_id
        RETURNING {", ".join("s." + c for c in SourceRow.__struct_fields__)}
        """,  # noqa: S608
        lease_s,
        holder,
    )
    return None if record is None else msgspec.convert(dict(record), SourceRow)


async def has_room(conn: Connection, workspace_id: str, max_outstanding: int) -> bool:
    """Whether the workspace may queue one more source: fewer than `max_outstanding` of its
    sources are queued or being processed. Counted under a lock of the workspace held to the
    end of the caller's transaction, so concurrent ingests cannot both take the last place."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('memory.source:' || $1, 0))",
        workspace_id,
    )
    outstanding: int = await conn.fetchval(
        "SELECT count(*) FROM memory.source WHERE workspace_id = $1 AND status = 'processing'",
        workspace_id,
    )
    return outstanding < max_outstanding


async def waiting_sources(conn: Connection) -> int:
    """How many sources wait for a worker: being processed, and leased by no live worker."""
    count: int = await conn.fetchval(
        "SELECT count(*) FROM memory.source WHERE status = 'processing'"  # noqa: S608 (constant)
        " AND (lease_until IS NULL OR lease_until < now()"
        f" OR (holder IS NOT NULL AND holder NOT IN ({LIVE_HOLDERS})))"
    )
    return count


async def renew_lease(conn: Connection, api_key: str, source_id: str, lease_s: float) -> None:
    await conn.execute(
        "UPDATE memory.source SET lease_until = now() + make_interval(secs => $3)"
        " WHERE api_key = $1 AND source_id = $2 AND status = 'processing'",
        api_key,
        source_id,
        lease_s,
    )


async def complete_source(
    conn: Connection,
    api_key: str,
    source_id: str,
    chunks: list[ChunkRow],
    rules: list[RuleRow],
    now_ms: int,
) -> bool:
    """Store a source's chunks and rules and mark it completed, replacing what an earlier,
    interrupted attempt left. False if the source is no longer being processed."""
    still = await conn.fetchval(
        "SELECT 1 FROM memory.source WHERE api_key = $1 AND source_id = $2"
        " AND status = 'processing' FOR UPDATE",
        api_key,
        source_id,
    )
    if still is None:
        return False
    await replace_rows(conn, api_key, source_id, chunks, rules)
    await conn.execute(
        "UPDATE memory.source SET status = 'completed', chunk_count = $3, rule_count = $4,"
        " updated_at = $5, lease_until = NULL WHERE api_key = $1 AND source_id = $2",
        api_key,
        source_id,
        len(chunks),
        len(rules),
        now_ms,
    )
    return True


async def replace_rows(
    conn: Connection, api_key: str, source_id: str, chunks: list[ChunkRow], rules: list[RuleRow]
) -> None:
    """Put `chunks` and `rules` in place of the source's (inside the caller's transaction)."""
    for table in ("chunk", "rule"):
        await conn.execute(
            f"DELETE FROM memory.{table} WHERE api_key = $1 AND source_id = $2",  # noqa: S608
            api_key,
            source_id,
        )
    await conn.copy_records_to_table(
        "chunk",
        schema_name=SCHEMA,
        columns=["api_key", "source_id", "chunk_index", "text", "page", "sheet", "heading"],
        records=[
            (api_key, source_id, c.chunk_index, c.text, c.page, c.sheet, c.heading) for c in chunks
        ],
    )
    await conn.copy_records_to_table(
        "rule",
        schema_name=SCHEMA,
        columns=["api_key", "source_id", "rule_index", "content", "category"],
        records=[(api_key, source_id, r.rule_index, r.content, r.category) for r in rules],
    )


async def fail_source(
    conn: Connection, api_key: str, source_id: str, reason: str, detail: str, now_ms: int
) -> None:
    await conn.execute(
        "UPDATE memory.source SET status = 'failed', failure_reason = $3, failure_detail = $4,"
        " updated_at = $5, lease_until = NULL"
        " WHERE api_key = $1 AND source_id = $2 AND status = 'processing'",
        api_key,
        source_id,
        reason,
        detail,
        now_ms,
    )


async def delete_source(conn: Connection, api_key: str, source_id: str) -> tuple[int, int]:
    """Delete a source with its chunks and rules; the numbers of chunks and rules it had."""
    counts = await conn.fetchrow(
        "SELECT (SELECT count(*) FROM memory.chunk WHERE api_key = $1 AND source_id = $2) AS c,"
        " (SELECT count(*) FROM memory.rule WHERE api_key = $1 AND source_id = $2) AS r",
        api_key,
        source_id,
    )
    await conn.execute(
        "DELETE FROM memory.source WHERE api_key = $1 AND source_id = $2", api_key, source_id
    )
    assert counts is not None
    return int(counts["c"]), int(counts["r"])


# chunks and rules ------------------------------------------------------------------------------


async def rules(conn: Connection, api_key: str, source_id: str | None, limit: int) -> list[RuleRow]:
    records = await conn.fetch(
        "SELECT source_id, rule_index, content, category FROM memory.rule"
        " WHERE api_key = $1 AND ($2::text IS NULL OR source_id = $2)"
        " ORDER BY source_id, rule_index LIMIT $3",
        api_key,
        source_id,
        limit,
    )
    return [msgspec.convert(dict(r), RuleRow) for r in records]


async def recent_chunks(
    conn: Connection, api_key: str, source_ids: list[str] | None, limit: int
) -> list[RecentChunk]:
    """The first chunks of the most recently uploaded completed sources: what a search answers
    when the query cannot be embedded."""
    records = await conn.fetch(
        "SELECT c.source_id, c.text FROM memory.chunk c"
        " JOIN memory.source s USING (api_key, source_id)"
        " WHERE c.api_key = $1 AND s.status = 'completed'"
        " AND ($2::text[] IS NULL OR c.source_id = ANY($2))"
        " ORDER BY s.uploaded_at DESC, c.source_id, c.chunk_index LIMIT $3",
        api_key,
        source_ids,
        limit,
    )
    return [msgspec.convert(dict(r), RecentChunk) for r in records]


async def chunk_texts(conn: Connection, api_key: str, source_id: str) -> list[ChunkRow]:
    records = await conn.fetch(
        "SELECT chunk_index, text, page, sheet, heading FROM memory.chunk"
        " WHERE api_key = $1 AND source_id = $2 ORDER BY chunk_index",
        api_key,
        source_id,
    )
    return [msgspec.convert(dict(r), ChunkRow) for r in records]


# documents: migration and deletion -------------------------------------------------------------


async def scoped_sources(
    conn: Connection,
    api_key: str,
    organization_id: str,
    document_ids: list[str] | None,
    uploaded_by_ms: int,
) -> list[SourceRow]:
    """Sources scoped to `document_ids` (to any document or none of the organization when None)
    uploaded by `uploaded_by_ms`."""
    records = await conn.fetch(
        f"SELECT {_SOURCE_COLUMNS} FROM memory.source"  # noqa: S608
        " WHERE api_key = $1 AND organization_id = $2"
        " AND ($3::text[] IS NULL OR document_id = ANY($3)) AND uploaded_at <= $4",
        api_key,
        organization_id,
        document_ids,
        uploaded_by_ms,
    )
    return [msgspec.convert(dict(r), SourceRow) for r in records]


async def move_document(
    conn: Connection, api_key: str, organization_id: str, old_id: str, new_id: str
) -> int:
    """Sources ingested, and upload URLs asked for, with the old id take the new one."""
    moved = await move_document_rows(
        conn, "memory.source", None, api_key, organization_id, old_id, new_id
    )
    await conn.execute(
        "UPDATE memory.upload SET document_id = $4"
        " WHERE api_key = $1 AND organization_id = $2 AND document_id = $3",
        api_key,
        organization_id,
        old_id,
        new_id,
    )
    return moved

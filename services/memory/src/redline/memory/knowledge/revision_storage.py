"""The SQL of a source's revisions: switching a completed source to new content."""

from __future__ import annotations

from redline.memory.knowledge.storage import ChunkRow, RuleRow, replace_rows
from redline.pg import Connection


async def switch_revision(
    conn: Connection,
    api_key: str,
    source_id: str,
    from_version: int,
    chunks: list[ChunkRow],
    rules: list[RuleRow],
    now_ms: int,
) -> bool:
    """Replace a completed source's chunks and rules and move it to the next revision, if it is
    still completed at `from_version`; False otherwise (deleted, or updated meanwhile)."""
    current = await conn.fetchval(
        "SELECT 1 FROM memory.source WHERE api_key = $1 AND source_id = $2"
        " AND status = 'completed' AND version = $3 FOR UPDATE",
        api_key,
        source_id,
        from_version,
    )
    if current is None:
        return False
    await replace_rows(conn, api_key, source_id, chunks, rules)
    await conn.execute(
        "UPDATE memory.source SET version = version + 1, chunk_count = $3, rule_count = $4,"
        " updated_at = $5 WHERE api_key = $1 AND source_id = $2",
        api_key,
        source_id,
        len(chunks),
        len(rules),
        now_ms,
    )
    return True


def _lock_key(api_key: str, source_id: str) -> str:
    return f"memory.revision:{api_key}/{source_id}"


async def try_lock(conn: Connection, api_key: str, source_id: str) -> bool:
    """Take the session lock of a source's updates on `conn`; False if another holds it."""
    taken: bool = await conn.fetchval(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0))", _lock_key(api_key, source_id)
    )
    return taken


async def unlock(conn: Connection, api_key: str, source_id: str) -> None:
    await conn.execute(
        "SELECT pg_advisory_unlock(hashtextextended($1, 0))", _lock_key(api_key, source_id)
    )

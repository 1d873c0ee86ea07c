"""The SQL suggest reads besides judgments: whether the key's knowledge changed lately."""

from __future__ import annotations

from redline.pg import Connection


async def knowledge_changed_since(conn: Connection, api_key: str, since_ms: int) -> bool:
    changed: bool = await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM memory.source WHERE api_key = $1"
        " AND status = 'completed' AND updated_at >= $2)",
        api_key,
        since_ms,
    )
    return changed

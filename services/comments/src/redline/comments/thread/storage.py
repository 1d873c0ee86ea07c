"""SQL of the comment endpoints beyond the core statements: one annotation's comments with what
decides who sees them, and the record that a user has viewed it."""

from __future__ import annotations

from typing import Any

from redline.pg import Connection, Pool


async def comments_of(
    conn: Connection | Pool,
    api_key: str,
    organization_id: str,
    document_id: str,
    annotation_id: str,
) -> Any:
    """The annotation's visibility columns and its comments (as JSON text), or None."""
    return await conn.fetchrow(
        "SELECT creator_user_id, visibility, visible_to, assigned_user_id,"
        " (body -> 'comments')::text AS comments FROM comments.annotation"
        " WHERE api_key = $1 AND organization_id = $2 AND annotation_id = $3"
        " AND document_id = $4",
        api_key,
        organization_id,
        annotation_id,
        document_id,
    )


async def mark_viewed(
    conn: Connection | Pool, api_key: str, organization_id: str, annotation_id: str, user_id: str
) -> None:
    await conn.execute(
        "INSERT INTO comments.annotation_view (api_key, organization_id, annotation_id, user_id,"
        " viewed_at) VALUES ($1, $2, $3, $4,"
        " (extract(epoch FROM clock_timestamp()) * 1000)::bigint) ON CONFLICT DO NOTHING",
        api_key,
        organization_id,
        annotation_id,
        user_id,
    )

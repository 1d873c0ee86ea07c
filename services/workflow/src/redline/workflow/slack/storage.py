"""The SQL of Slack credentials: one sealed bot token per API key."""

from __future__ import annotations

import msgspec

from redline.pg import Connection


class SlackCredentialRow(msgspec.Struct, frozen=True, kw_only=True):
    bot_token_sealed: bytes
    token_hint: str
    updated_at: int


async def put(
    conn: Connection,
    api_key: str,
    workspace_id: str,
    sealed: bytes,
    hint: str,
    updated_at: int,
) -> None:
    await conn.execute(
        "INSERT INTO workflow.slack_credential"
        " (api_key, workspace_id, bot_token_sealed, token_hint, updated_at)"
        " VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (api_key) DO UPDATE SET workspace_id = EXCLUDED.workspace_id,"
        " bot_token_sealed = EXCLUDED.bot_token_sealed, token_hint = EXCLUDED.token_hint,"
        " updated_at = EXCLUDED.updated_at",
        api_key,
        workspace_id,
        sealed,
        hint,
        updated_at,
    )


async def delete(conn: Connection, api_key: str) -> None:
    await conn.execute("DELETE FROM workflow.slack_credential WHERE api_key = $1", api_key)


async def get(conn: Connection, api_key: str) -> SlackCredentialRow | None:
    row = await conn.fetchrow(
        "SELECT bot_token_sealed, token_hint, updated_at FROM workflow.slack_credential"
        " WHERE api_key = $1",
        api_key,
    )
    return None if row is None else SlackCredentialRow(**dict(row))

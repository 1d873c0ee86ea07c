"""Identity's database for its unit tests: migrated, holding the workspace `ws-1` and its API key
`key-1`, on the test's own fresh PostgreSQL database (tests name that key `KEY`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from redline.envelope.auth import ApiKeyPrincipal
from redline.identity.app import MIGRATIONS
from redline.pg import Connection, Pool, create_pool, migrate

KEY = ApiKeyPrincipal(workspace_id="ws-1", api_key="key-1")


async def add_api_key(conn: Connection, key: ApiKeyPrincipal) -> None:
    await conn.execute(
        "INSERT INTO identity.api_key (api_key, workspace_id, name, key_type)"
        " VALUES ($1, $2, 'k', 'testing')",
        key.api_key,
        key.workspace_id,
    )


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[Pool]:
    pool = await create_pool(database_url)
    async with pool.acquire() as conn:
        await migrate(conn, "identity", MIGRATIONS)
        await conn.execute(
            "INSERT INTO identity.workspace (id, name, owner_id, owner_email, owner_name,"
            " owner_avatar, token_hash, token_sealed) VALUES ($1, 'W', 'o', 'o@example.com',"
            " 'O', '', '\\x00', '\\x00')",
            KEY.workspace_id,
        )
        await add_api_key(conn, KEY)
    yield pool
    await pool.close()

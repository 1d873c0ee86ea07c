"""Migration 0017 on a database that holds settings: the two switch histories kept before it
become one, activity logs count as on since their `enabledTime`, and every advanced endpoint has
been switched on since it was made."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import asyncpg

from redline.identity.app import MIGRATIONS
from redline.pg import migrate

SWITCH_HISTORY = 17


def migrations_before(version: int, directory: Path) -> Path:
    directory.mkdir()
    for path in MIGRATIONS.glob("*.sql"):
        if int(path.name[:4]) < version:
            shutil.copy(path, directory / path.name)
    return directory


async def test_the_switch_histories_become_one(database_url: str, tmp_path: Path) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        await migrate(conn, "identity", migrations_before(SWITCH_HISTORY, tmp_path / "old"))
        await conn.execute(
            "INSERT INTO identity.workspace (id, name, owner_id, owner_email, owner_name,"
            " owner_avatar, token_hash, token_sealed) VALUES ('ws-1', 'W', 'o', 'o@example.com',"
            " 'O', '', '\\x00', '\\x00')"
        )
        for key in ("key-1", "key-2", "key-3"):
            await conn.execute(
                "INSERT INTO identity.api_key (api_key, workspace_id, name, key_type)"
                " VALUES ($1, 'ws-1', 'k', 'testing')",
                key,
            )
        await conn.execute(
            "INSERT INTO identity.api_key_config (api_key, webhook_switched, notification_switched,"
            " activity) VALUES ($1, $2, $3, $4), ($5, '{}', '{}', $6), ($7, '{}', '{}', NULL)",
            "key-1",
            json.dumps({"useWebhookService": 100, "triggers.comment.add": 200}),
            json.dumps({"useNotificationService": 300}),
            json.dumps({"isEnabled": True, "enabledTime": 400, "triggers": {}}),
            "key-2",
            json.dumps({"isEnabled": False, "enabledTime": 500}),
            "key-3",
        )
        await conn.execute(
            "INSERT INTO identity.advanced_webhook_endpoint (id, api_key, workspace_id, url,"
            " disabled, secret_sealed, created_at) VALUES ('ep_1', 'key-1', 'ws-1',"
            " 'https://hooks.example.com/', true, '\\x00', '2026-06-01T10:00:00Z')"
        )

        assert await migrate(conn, "identity", MIGRATIONS) == [SWITCH_HISTORY]

        rows = await conn.fetch(
            "SELECT api_key, switched FROM identity.api_key_config ORDER BY api_key"
        )
        assert {r["api_key"]: json.loads(r["switched"]) for r in rows} == {
            "key-1": {
                "webhook.useWebhookService": 100,
                "webhook.triggers.comment.add": 200,
                "notification.useNotificationService": 300,
                "activity.isEnabled": 400,
            },
            # Logs that are off now kept no time of being turned off.
            "key-2": {},
            "key-3": {},
        }
        since_made = await conn.fetchval(
            "SELECT switched_at = created_at FROM identity.advanced_webhook_endpoint"
            " WHERE id = 'ep_1'"
        )
        assert since_made is True
        gone = await conn.fetchval(
            "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'identity'"
            " AND column_name IN ('webhook_switched', 'notification_switched')"
        )
        assert gone == 0
    finally:
        await conn.close()

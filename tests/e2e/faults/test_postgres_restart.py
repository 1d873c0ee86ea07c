"""PostgreSQL restarted in the middle of a burst of writes: while it is down the API answers
UNAVAILABLE (never an internal error), it recovers by itself once the server is back, and every
write it acknowledged is there afterwards."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from redline.cli.system import create_system_app
from redline.local.servers import LocalPostgres
from redline.testing.api import ApiClient, Workspace
from redline.testing.plugin import random_secret_key, with_database
from tests.e2e.conftest import StartApp

BURST = 60


@pytest.fixture
def postgres_dir() -> Iterator[Path]:
    """A server of this test's own: stopping the session's would stop every other test's."""
    parent = Path(tempfile.mkdtemp(prefix="redline-test-pg-restart-"))
    yield parent / "data"
    shutil.rmtree(parent, ignore_errors=True)


async def add(api: ApiClient, ws: Workspace, n: int) -> tuple[int, dict[str, Any]]:
    response = await api.post(
        "/v2/commentannotations/add",
        {
            "organizationId": "acme",
            "documentId": "d1",
            "createOrganization": True,
            "createDocument": True,
            "commentAnnotations": [
                {"annotationId": f"a{n}", "commentData": [{"from": {"userId": "u"}}]}
            ],
        },
        headers=ws.key_headers,
    )
    return response.status, response.body


async def test_a_restart_mid_burst_answers_unavailable_recovers_and_loses_nothing(
    postgres_dir: Path, nats_url: str, start_app: StartApp, tmp_path: Path
) -> None:
    server = LocalPostgres(postgres_dir)
    try:
        name = "redline_restart_" + uuid.uuid4().hex[:8]
        admin = await asyncpg.connect(server.url)
        await admin.execute(f'CREATE DATABASE "{name}"')
        await admin.close()
        app, _ = create_system_app(
            {},
            database_url=with_database(server.url, name),
            nats_url=nats_url,
            data_dir=str(tmp_path / "data"),
            secret_key=random_secret_key(),
            open_signup=True,
        )
        api = await start_app(app)
        ws = await api.create_workspace("restart@example.com")

        answers: dict[int, tuple[int, dict[str, Any]]] = {}
        for n in range(BURST // 3):
            answers[n] = await add(api, ws, n)
        await asyncio.to_thread(server.stop)
        for n in range(BURST // 3, 2 * BURST // 3):
            answers[n] = await add(api, ws, n)
        server = await asyncio.to_thread(LocalPostgres, postgres_dir)
        recovered_at = None
        for n in range(2 * BURST // 3, BURST):
            answers[n] = await add(api, ws, n)
            if answers[n][0] == 200 and recovered_at is None:
                recovered_at = n
            if answers[n][0] != 200:
                await asyncio.sleep(0.2)

        statuses = {status for status, _ in answers.values()}
        assert statuses <= {200, 503}, answers
        down = [body for status, body in answers.values() if status == 503]
        assert down, "no request met the database down"
        assert {body["error"]["status"] for body in down} == {"UNAVAILABLE"}
        assert recovered_at is not None, "the API never recovered"
        assert all(answers[n][0] == 200 for n in range(recovered_at, BURST))
        acknowledged = {f"a{n}" for n, (status, _) in answers.items() if status == 200}
        read = await api.post(
            "/v2/commentannotations/get",
            {"organizationId": "acme", "documentId": "d1", "pageSize": 1000},
            headers=ws.key_headers,
        )
        assert read.status == 200, read.body
        assert acknowledged <= {a["annotationId"] for a in read.data}
    finally:
        await asyncio.to_thread(server.stop)

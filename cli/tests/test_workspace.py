"""`redline workspace create`: the operator's way to make a workspace without the HTTP API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from pytest_aiohttp import AiohttpClient

from cli.tests.cli_support import (
    cli_env,
    kill_all,
    local_env,
    run_cli,
    servers_of,
    start_up,
    wait_until_up,
)
from redline.cli.lock import DataDirLock
from redline.cli.system import create_system_app
from redline.testing.api import ApiClient
from redline.testing.plugin import random_secret_key


async def test_create_prints_the_endpoints_body_and_its_token_works_over_http(
    database_url: str, nats_url: str, tmp_path: Path, aiohttp_client: AiohttpClient
) -> None:
    secret_key = random_secret_key()
    data_dir = tmp_path / "data"

    completed = await run_cli(
        "workspace",
        "create",
        "--email",
        "operator@example.com",
        env=cli_env(database_url, secret_key, data_dir),
    )

    assert completed.returncode == 0, completed.stderr
    printed: dict[str, Any] = json.loads(completed.stdout)
    assert set(printed) == {"result"}
    assert printed["result"]["status"] == "success"
    assert printed["result"]["message"] == "Workspace created successfully"
    data = printed["result"]["data"]
    assert set(data) == {"id", "name", "owner", "authToken", "apiKeyList"}
    assert data["owner"]["email"] == "operator@example.com"
    assert set(data["owner"]) == {"email", "id", "name", "avatar"}
    [(key_id, key)] = data["apiKeyList"].items()
    assert key["id"] == key_id
    assert key["type"] == "testing"

    app, _ = create_system_app(
        {},
        database_url=database_url,
        nats_url=nats_url,
        data_dir=str(data_dir),
        secret_key=secret_key,
    )
    client = await aiohttp_client(app)
    api = ApiClient(client.session, str(client.make_url("")))
    got = await api.post(
        "/v2/workspace/get",
        {},
        headers={
            "x-redline-workspace-id": data["id"],
            "x-redline-workspace-auth-token": data["authToken"],
        },
    )
    assert got.status == 200, got.body
    assert got.data == data


async def test_create_with_a_name_uses_it(database_url: str, tmp_path: Path) -> None:
    completed = await run_cli(
        "workspace",
        "create",
        "--email",
        "named@example.com",
        "--name",
        "Ops",
        env=cli_env(database_url, random_secret_key(), tmp_path / "data"),
    )

    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["result"]["data"]["name"] == "Ops"


async def test_create_with_a_bad_email_fails_with_a_message(
    database_url: str, tmp_path: Path
) -> None:
    completed = await run_cli(
        "workspace",
        "create",
        "--email",
        "not-an-email",
        env=cli_env(database_url, random_secret_key(), tmp_path / "data"),
    )

    assert completed.returncode != 0
    assert "ownerEmail" in completed.stderr
    assert "Traceback" not in completed.stderr
    error = json.loads(completed.stdout)["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert [issue["path"] for issue in error["details"]["issues"]] == ["data.ownerEmail"]


async def test_create_without_email_is_a_usage_error(tmp_path: Path) -> None:
    completed = await run_cli(
        "workspace", "create", env=cli_env("unused", random_secret_key(), tmp_path / "data")
    )

    assert completed.returncode == 2
    assert "--email" in completed.stderr
    assert completed.stdout == ""


@pytest.mark.timeout(600)
async def test_create_on_local_servers_alone_and_beside_a_running_up(
    tmp_path: Path, data_dir: Path, unused_tcp_port_factory: Callable[[], int]
) -> None:
    port = unused_tcp_port_factory()
    env = local_env(data_dir, port)

    alone = await run_cli("workspace", "create", "--email", "alone@example.com", env=env)
    assert alone.returncode == 0, alone.stderr
    # It started PostgreSQL for itself, then stopped it and gave up the data dir.
    assert servers_of(data_dir) == []
    DataDirLock.acquire(data_dir).release()

    log = tmp_path / "up.log"
    up = await start_up(env, log)
    try:
        await wait_until_up(up, log)
        servers = {p.pid for p in servers_of(data_dir)}
        beside = await run_cli("workspace", "create", "--email", "beside@example.com", env=env)
        assert beside.returncode == 0, beside.stderr
        # It used the running system's server and left it running.
        assert {p.pid for p in servers_of(data_dir)} == servers
        created = json.loads(alone.stdout)["result"]["data"]
        async with aiohttp.ClientSession() as session:
            got = await ApiClient(session, f"http://127.0.0.1:{port}").post(
                "/v2/workspace/get",
                {},
                headers={
                    "x-redline-workspace-id": created["id"],
                    "x-redline-workspace-auth-token": created["authToken"],
                },
            )
        assert got.status == 200, got.body
    finally:
        await kill_all([up], data_dir)

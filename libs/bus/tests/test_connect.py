"""Connecting to NATS: waiting for a late server at start-up, giving up in bounded time,
reconnecting for as long as it takes afterwards, and closing while the server is gone."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from nats.aio.msg import Msg

from redline.bus import Bus, inbox_prefix
from redline.bus.connect import without_secrets
from redline.local.servers import LocalNats
from redline.testing.nats_users import HARNESS_USER, USERS_FILE, nats_users


async def wait_until(predicate: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"not true within {timeout_s}s")
        await asyncio.sleep(0.05)


async def test_connect_waits_for_a_server_that_starts_late(nats_server: LocalNats) -> None:
    nats_server.stop()

    async def start_later() -> None:
        await asyncio.sleep(1.0)
        await asyncio.to_thread(nats_server.start)

    starter = asyncio.create_task(start_later())
    bus = await Bus.connect(nats_server.url, name="late", attempts=20)
    try:
        assert bus.connected
        await bus.nc.flush(timeout=2)
    finally:
        await bus.close()
        await starter


async def test_connect_gives_up_after_its_attempts(nats_server: LocalNats) -> None:
    nats_server.stop()
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="cannot connect to NATS"):
        await asyncio.wait_for(Bus.connect(nats_server.url, name="never", attempts=3), 10)
    assert time.monotonic() - started < 5


async def test_a_connected_bus_reconnects_after_a_long_outage(nats_server: LocalNats) -> None:
    bus = await Bus.connect(nats_server.url, name="patient")
    try:
        nats_server.stop()
        await wait_until(lambda: not bus.connected, 5)
        await asyncio.sleep(2.0)  # several reconnect attempts fail meanwhile
        assert not bus.nc.is_closed
        nats_server.start()
        await wait_until(lambda: bus.connected, 10)
        await bus.nc.flush(timeout=2)
    finally:
        await bus.close()


async def test_closing_while_the_server_is_down_does_not_hang(nats_server: LocalNats) -> None:
    bus = await Bus.connect(nats_server.url, name="leaving")
    nats_server.stop()
    await wait_until(lambda: not bus.connected, 5)

    await asyncio.wait_for(bus.close(), 3)
    assert bus.nc.is_closed


async def test_giving_up_names_the_server_without_its_password(nats_server: LocalNats) -> None:
    nats_server.stop()
    address = nats_server.url.partition("://")[2]

    with pytest.raises(RuntimeError) as raised:
        await Bus.connect(f"nats://notify:hunter2@{address}", name="never", attempts=1)

    assert "hunter2" not in str(raised.value)
    assert f"nats://notify:***@{address}" in str(raised.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("nats://127.0.0.1:4222", "nats://127.0.0.1:4222"),
        ("nats://s3cret-token@nats:4222", "nats://***@nats:4222"),
        ("nats://a:p1@n1:4222,nats://a:p2@n2:4222", "nats://a:***@n1:4222,nats://a:***@n2:4222"),
    ],
)
def test_urls_in_messages_keep_users_and_hosts_but_no_secrets(url: str, shown: str) -> None:
    assert without_secrets(url) == shown


async def test_a_publish_the_deployment_does_not_allow_is_logged_as_an_error(
    tmp_path: Path, pytestconfig: pytest.Config, caplog: pytest.LogCaptureFixture
) -> None:
    """Under the deployment's NATS users, a service publishing where its user may not is
    refused; a request there would only time out, so the refusal is an error line. The test
    harness's own user may publish anywhere."""
    users = nats_users(pytestconfig.rootpath / USERS_FILE, tmp_path)
    server = LocalNats(
        tmp_path / "nats", config_file=users.config_file, environ=users.server_environ
    )
    server.start()
    try:
        for user in ("memory", HARNESS_USER):
            bus = await Bus.connect(users.url(server.url, user), name=user, attempts=3)
            try:
                await bus.nc.publish("rpc.identity.auth.verify", b"{}")
                await bus.nc.publish("rpc.workflow.receivers.get", b"{}")
                # The server answers a flush's PING after the -ERR of the publish before it.
                await bus.nc.flush(timeout=2)
            finally:
                await bus.close()
    finally:
        server.stop()
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        'NATS refused: nats: permissions violation for publish to "rpc.workflow.receivers.get"'
    ]


async def test_each_service_hears_replies_on_inboxes_no_other_service_may_read(
    tmp_path: Path, pytestconfig: pytest.Config, caplog: pytest.LogCaptureFixture
) -> None:
    users = nats_users(pytestconfig.rootpath / USERS_FILE, tmp_path)
    server = LocalNats(
        tmp_path / "nats", config_file=users.config_file, environ=users.server_environ
    )
    server.start()
    buses: list[Bus] = []
    try:
        for user in (HARNESS_USER, "comments", "notify"):
            url = users.url(server.url, user)
            buses.append(await Bus.connect(url, name=user, inbox=inbox_prefix(user), attempts=3))
        identity, comments, notify = buses

        async def answer(msg: Msg) -> None:
            await msg.respond(b"verified")

        await identity.nc.subscribe("rpc.identity.auth.verify", cb=answer)
        for bus in buses:
            await bus.nc.flush(timeout=2)
        reply = await comments.nc.request("rpc.identity.auth.verify", b"{}", timeout=2)
        await notify.nc.subscribe(inbox_prefix("comments") + ".>")
        await notify.nc.flush(timeout=2)
    finally:
        for bus in buses:
            await bus.close()
        server.stop()

    assert reply.data == b"verified"
    # nats-py lower-cases the server's -ERR.
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        'NATS refused: nats: permissions violation for subscription to "_inbox.comments.>"'
    ]

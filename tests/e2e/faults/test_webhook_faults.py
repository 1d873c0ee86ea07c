"""Faults on either side of a delivery: failing or absent receivers, notify restarted, NATS
restarted. Nothing is lost and, at the receiver, nothing arrives twice under one webhook id."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from redline.cli.system import plugins
from redline.notify.app import create_app as create_notify_app
from redline.notify.settings import NotifySettings
from redline.runtime.app import build_app
from redline.runtime.settings import RuntimeSettings, load_settings
from redline.testing.api import ApiClient, Workspace
from redline.testing.plugin import LocalNats
from redline.testing.receiver import WebhookReceiver
from tests.e2e.conftest import StartApp, StopApp
from tests.e2e.webhook_flows import add_annotations, comment, enable_webhooks, notified

LIST = "/v2/webhooks/deliveries/list"
RETRY = "/v2/webhooks/deliveries/retry"


async def deliveries(api: ApiClient, ws: Workspace, **filters: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    token = None
    while True:
        page = await api.post(
            LIST, {**filters, **({"pageToken": token} if token else {})}, headers=ws.key_headers
        )
        assert page.status == 200, page.body
        found += page.data
        token = page.result.get("nextPageToken")
        if token is None:
            return found


async def settled(
    api: ApiClient,
    ws: Workspace,
    count: int,
    timeout_s: float = 20,
    status: str | None = None,
) -> list[Any]:
    """The key's deliveries once `count` of them are finished (succeeded or failed; or in
    `status`)."""
    finished = (status,) if status else ("succeeded", "failed")
    async with asyncio.timeout(timeout_s):
        while True:
            found = await deliveries(api, ws)
            if sum(d["status"] in finished for d in found) >= count:
                return found
            await asyncio.sleep(0.05)


async def test_two_failures_then_success_is_one_delivery_with_three_attempts(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("flaky@example.com")
    await enable_webhooks(api, ws, receiver, processed=False)
    receiver.scripted = [500, 500]

    await add_annotations(api, ws, notified(annotationId="a1"))

    (delivery,) = await settled(api, ws, 1)
    assert delivery["status"] == "succeeded"
    assert delivery["attempts"] == 3
    assert [a["statusCode"] for a in delivery["attemptLog"]] == [500, 500, 200]
    assert [a["error"] for a in delivery["attemptLog"]] == ["HTTP 500", "HTTP 500", None]
    assert [r.headers["webhook-id"] for r in receiver.requests] == [delivery["deliveryId"]] * 3
    assert delivery["eventType"] == "comment_annotation.add"
    assert delivery["url"] == receiver.url("/raw")


async def test_a_failed_delivery_can_be_listed_and_sent_again(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await api.create_workspace("replay@example.com")
    await enable_webhooks(api, ws, receiver, processed=False)
    # The first attempt and all five retries fail.
    receiver.scripted = [503] * 6

    await add_annotations(api, ws, notified(annotationId="a1"))

    (failed,) = await settled(api, ws, 1)
    assert failed["status"] == "failed"
    assert failed["attempts"] == 6
    assert await deliveries(api, ws, status="succeeded") == []
    assert [d["deliveryId"] for d in await deliveries(api, ws, status="failed")] == [
        failed["deliveryId"]
    ]

    retried = await api.post(
        RETRY, {"deliveryIds": [failed["deliveryId"], "msg_unknown"]}, headers=ws.key_headers
    )
    assert retried.status == 200, retried.body
    assert retried.data == {
        failed["deliveryId"]: {"success": True, "message": "Delivery queued for retry."},
        "msg_unknown": {"success": False, "message": "Delivery not found."},
    }
    await receiver.wait_for(1)
    (done,) = await settled(api, ws, 1, status="succeeded")
    assert done["attempts"] == 7
    again = await api.post(RETRY, {"deliveryIds": [done["deliveryId"]]}, headers=ws.key_headers)
    assert again.data[done["deliveryId"]] == {
        "success": False,
        "message": "Delivery already succeeded.",
    }

    other = await api.create_workspace("other@example.com")
    assert await deliveries(api, other) == []
    stolen = await api.post(RETRY, {"deliveryIds": [done["deliveryId"]]}, headers=other.key_headers)
    assert stolen.data[done["deliveryId"]]["message"] == "Delivery not found."


async def test_a_receiver_down_while_notify_restarts_still_gets_everything_once(
    notify_overrides: dict[str, Any],
    start_app: StartApp,
    stop_app: StopApp,
    receiver: WebhookReceiver,
) -> None:
    """Identity and comments in one app, notify in its own, as they are deployed."""
    overrides = {**notify_overrides, "webhook_retry_schedule_s": [0.2] * 200}
    settings = load_settings(RuntimeSettings, {}, **overrides)
    core = [p for p in plugins({}, overrides) if p.name != "notify"]
    api = await start_app(build_app(settings, core))
    notify_settings = load_settings(NotifySettings, {}, **overrides)
    notify_api = await start_app(create_notify_app(notify_settings))
    ws = await api.create_workspace("outage@example.com")
    await enable_webhooks(api, ws, receiver, processed=False)
    await receiver.stop()

    async def produce(documents: range) -> None:
        for document in documents:
            batch = [notified(comment(text=f"{document}-{i}")) for i in range(100)]
            await add_annotations(api, ws, *batch, document_id=f"doc-{document}")

    await produce(range(5))
    await stop_app(notify_api)  # notify stops mid-way…
    await produce(range(5, 10))
    notify_api = await start_app(create_notify_app(notify_settings))  # …and a new one takes over
    await receiver.start()  # the receiver comes back on the same port

    await receiver.wait_for(1000, timeout_s=60)
    await settled(notify_api, ws, 1000, timeout_s=30)
    counts = receiver.counts()
    assert len(counts) == 1000
    assert max(counts.values()) == 1


async def test_nats_restarting_mid_stream_loses_nothing(
    api: ApiClient, receiver: WebhookReceiver, nats_server: LocalNats
) -> None:
    ws = await api.create_workspace("nats@example.com")
    await enable_webhooks(api, ws, receiver, processed=False)

    # NATS goes away while these are between the outbox, the stream and the consumer.
    await add_annotations(api, ws, *[notified(annotationId=f"before-{i}") for i in range(50)])
    nats_server.stop()
    await asyncio.sleep(0.5)
    nats_server.start()
    await _when_available(
        lambda: add_annotations(api, ws, *[notified(annotationId=f"after-{i}") for i in range(50)])
    )

    await receiver.wait_for(100, timeout_s=30)
    ids = [r.json()["commentAnnotation"]["annotationId"] for r in receiver.delivered()]
    assert sorted(ids) == sorted(f"{phase}-{i}" for phase in ("before", "after") for i in range(50))
    assert max(receiver.counts().values()) == 1


async def _when_available(call: Callable[[], Awaitable[Any]], timeout_s: float = 20) -> Any:
    """Comments ask identity over NATS: once NATS is back, the clients reconnect."""
    async with asyncio.timeout(timeout_s):
        while True:
            try:
                return await call()
            except AssertionError as failure:
                if "UNAVAILABLE" not in str(failure):
                    raise
            await asyncio.sleep(0.1)

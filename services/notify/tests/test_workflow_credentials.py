"""The headers of an execution webhook request, with the receiver asked of the workflow side over
a real NATS server, and such requests sent by the delivery worker to a real HTTPS receiver: what
the receiver verifies, and what becomes of a delivery whose execution is gone or whose receiver
cannot be read yet."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import time

import msgspec
import pytest
from standardwebhooks.webhooks import Webhook

from redline.bus import Bus
from redline.envelope.errors import Unavailable
from redline.notify.deliveries import storage
from redline.notify.deliveries.headers import NotReady, Undeliverable
from redline.notify.deliveries.schedule import RetrySchedule
from redline.notify.deliveries.storage import ClaimedDelivery
from redline.notify.workflow.credentials import WorkflowWebhookCredentials
from redline.notify.workflow.enqueue import WorkflowEnqueuer
from redline.pg import Pool
from redline.proto.rpc import Receiver, ReceiverGet
from redline.testing.receiver import WebhookReceiver
from services.notify.tests.delivery_rows import row
from services.notify.tests.worker_support import all_in, eventually, worker
from services.notify.tests.workflow_support import (
    EXECUTION,
    SECRET,
    WorkflowSide,
    assert_signed,
    execution_event,
    headers_of,
)

URL = "https://hooks.example.com/workflow"
BODY = b'{"eventId":"evt_1","seq":1}'


def delivery(execution: str = EXECUTION, *, attempts: int = 0, url: str = URL) -> ClaimedDelivery:
    return ClaimedDelivery(
        id=1,
        webhook_id="evt_1",
        workspace_id="ws1",
        api_key="key1",
        kind="workflow",
        url=url,
        ordering_key=execution,
        body=BODY,
        attempts=attempts,
        round_failures=attempts,
        claim_token="t",
        retry_holds_line=True,
    )


async def test_every_brand_gets_the_signature_event_id_and_attempt(bus: Bus) -> None:
    side = WorkflowSide({EXECUTION: Receiver(url=URL, secret=SECRET)})
    credentials = WorkflowWebhookCredentials(bus.nc, ["redline", " Velt "])
    timestamp = int(time.time())

    async with side.serving(bus.nc):
        headers = await credentials.headers(delivery(attempts=2), timestamp)

    signature = "sha256=" + hmac.new(SECRET.encode(), BODY, hashlib.sha256).hexdigest()
    assert {name: value for name, value in headers.items() if name != "webhook-signature"} == {
        "x-redline-signature": signature,
        "x-redline-event-id": "evt_1",
        "x-redline-attempt": "2",
        "x-velt-signature": signature,
        "x-velt-event-id": "evt_1",
        "x-velt-attempt": "2",
    }
    # What the worker adds, and the Standard Webhooks check a receiver makes.
    sent = {**headers, "webhook-id": "evt_1", "webhook-timestamp": str(timestamp)}
    Webhook(base64.b64encode(SECRET.encode()).decode()).verify(BODY, sent)


async def test_a_whsec_secret_signs_the_standard_signature_with_the_key_it_stands_for(
    bus: Bus,
) -> None:
    secret = "whsec_" + base64.b64encode(b"k" * 32).decode()
    side = WorkflowSide({EXECUTION: Receiver(url=URL, secret=secret)})
    timestamp = int(time.time())

    async with side.serving(bus.nc):
        headers = await WorkflowWebhookCredentials(bus.nc, ["redline"]).headers(
            delivery(), timestamp
        )

    Webhook(secret).verify(
        BODY, {**headers, "webhook-id": "evt_1", "webhook-timestamp": str(timestamp)}
    )
    # The brand signature keys the HMAC with the secret's text, as receivers of it expect.
    expected = hmac.new(secret.encode(), BODY, hashlib.sha256).hexdigest()
    assert headers["x-redline-signature"] == f"sha256={expected}"


async def test_the_receiver_is_asked_once_per_execution(bus: Bus) -> None:
    side = WorkflowSide(
        {name: Receiver(url=URL, secret=SECRET) for name in ("exec_1", "exec_2", "exec_3")}
    )
    credentials = WorkflowWebhookCredentials(bus.nc, ["redline"], remembered=2)

    async with side.serving(bus.nc):
        for execution in ("exec_1", "exec_1", "exec_2", "exec_1", "exec_3", "exec_1", "exec_2"):
            await credentials.headers(delivery(execution), 0)

    # Two remembered at most, the least recently used forgotten: exec_2 went for exec_3, and
    # was asked again.
    assert side.asked == {"exec_1": 1, "exec_2": 2, "exec_3": 1}


async def test_a_delivery_whose_execution_is_gone_is_undeliverable(bus: Bus) -> None:
    side = WorkflowSide()
    credentials = WorkflowWebhookCredentials(bus.nc, ["redline"])

    async with side.serving(bus.nc):
        for _ in range(2):
            with pytest.raises(Undeliverable, match=r"^the execution is gone$"):
                await credentials.headers(delivery(), 0)

    assert side.asked == {EXECUTION: 2}


async def test_a_delivery_to_another_url_than_its_executions_is_undeliverable(bus: Bus) -> None:
    side = WorkflowSide({EXECUTION: Receiver(url=URL, secret=SECRET)})

    async with side.serving(bus.nc):
        with pytest.raises(Undeliverable, match="URL"):
            await WorkflowWebhookCredentials(bus.nc, ["redline"]).headers(
                delivery(url=URL + "/other"), 0
            )


async def test_a_whsec_secret_that_is_no_base64_is_undeliverable_and_not_shown(bus: Bus) -> None:
    secret = "whsec_not base64 at all!"
    side = WorkflowSide({EXECUTION: Receiver(url=URL, secret=secret)})

    async with side.serving(bus.nc):
        with pytest.raises(Undeliverable) as caught:
            await WorkflowWebhookCredentials(bus.nc, ["redline"]).headers(delivery(), 0)

    assert secret not in str(caught.value)


async def test_a_receiver_that_cannot_be_read_yet_is_not_ready(bus: Bus) -> None:
    credentials = WorkflowWebhookCredentials(bus.nc, ["redline"], timeout_s=0.5)

    # Nobody answers.
    with pytest.raises(NotReady, match="cannot be read"):
        await credentials.headers(delivery(), 0)

    async def unavailable(request: ReceiverGet) -> Receiver:
        raise Unavailable("The database is not available.")

    side = WorkflowSide()
    side.get = unavailable  # type: ignore[method-assign]
    async with side.serving(bus.nc):
        with pytest.raises(NotReady, match="database"):
            await credentials.headers(delivery(), 0)


async def enqueue_events(pool: Pool, url: str, *seqs: int) -> list[str]:
    events = [execution_event(seq, seq - 1, url) for seq in seqs]
    await WorkflowEnqueuer(pool, 3600).handle(list(events))
    return [event.event.eventId for event in events]


FAST_RETRIES = {"workflow": RetrySchedule([0.05, 0.05], jitter=0.0)}


async def test_a_receiver_verifies_every_attempt(
    pool: Pool, bus: Bus, https_receiver: WebhookReceiver, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    url = https_receiver.url("/executions/1")
    side = WorkflowSide({EXECUTION: Receiver(url=url, secret=SECRET)})
    https_receiver.scripted = [500]
    [event_id] = await enqueue_events(pool, url, 1)

    async with (
        side.serving(bus.nc),
        worker(
            pool,
            workflow_headers=WorkflowWebhookCredentials(bus.nc, ["redline", "velt"]),
            kind_schedules=FAST_RETRIES,
            ca_file=str(https_receiver.ca_file),
        ),
    ):
        await eventually(lambda: all_in(pool, "succeeded", 1), what="the delivery")

    first, second = https_receiver.requests
    for attempt, received in enumerate((first, second)):
        assert_signed(received, brands=("redline", "velt"))
        headers = headers_of(received)
        assert headers["webhook-id"] == event_id
        for brand in ("redline", "velt"):
            assert headers[f"x-{brand}-event-id"] == event_id
            assert headers[f"x-{brand}-attempt"] == str(attempt)
        assert headers["content-type"] == "application/json"
        assert msgspec.json.decode(received.body)["eventId"] == event_id
    # Asked once for the execution, however many attempts.
    assert side.asked == {EXECUTION: 1}
    assert SECRET not in caplog.text


async def test_a_delivery_whose_execution_is_gone_fails_with_the_reason(
    pool: Pool, bus: Bus, https_receiver: WebhookReceiver
) -> None:
    url = https_receiver.url("/executions/1")
    [event_id] = await enqueue_events(pool, url, 1)

    async with (
        WorkflowSide().serving(bus.nc),
        worker(
            pool,
            workflow_headers=WorkflowWebhookCredentials(bus.nc, ["redline"]),
            ca_file=str(https_receiver.ca_file),
        ),
    ):
        await eventually(lambda: all_in(pool, "failed", 1), what="the failure")

    stored = await row(pool, event_id)
    assert (stored["attempts"], stored["last_error"]) == (1, "the execution is gone")
    assert https_receiver.requests == []


async def test_a_delivery_waits_without_an_attempt_while_its_receiver_cannot_be_read(
    pool: Pool, bus: Bus, https_receiver: WebhookReceiver
) -> None:
    url = https_receiver.url("/executions/1")
    side = WorkflowSide({EXECUTION: Receiver(url=url, secret=SECRET)})
    first, second = await enqueue_events(pool, url, 1, 2)

    async def given_back() -> bool:
        stored = await row(pool, first)
        return bool(
            stored["state"] == "pending" and stored["next_attempt_at"] > stored["created_at"]
        )

    async with worker(
        pool,
        defer_s=0.2,
        workflow_headers=WorkflowWebhookCredentials(bus.nc, ["redline"], timeout_s=0.5),
        ca_file=str(https_receiver.ca_file),
    ):
        # Nobody answers for the workflow service yet.
        await eventually(given_back, what="the delivery given back")
        assert (await row(pool, first))["attempts"] == 0
        async with side.serving(bus.nc):
            await eventually(lambda: all_in(pool, "succeeded", 2), what="both deliveries")

    assert [r.headers["webhook-id"] for r in https_receiver.requests] == [first, second]
    assert headers_of(https_receiver.requests[0])["x-redline-attempt"] == "0"
    async with pool.acquire() as conn:
        attempts = await storage.attempts_of(conn, [(await row(pool, first))["id"]])
    assert [(a.attempt, a.status) for a in attempts] == [(1, 200)]

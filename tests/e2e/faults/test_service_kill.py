"""Each service SIGKILLed in the middle of a burst of its own writes, in the split topology (each
service a process of its own behind the gateway, as deployed), then started again on the same
port as a replacement pod would be.

What it proves, for every service: while the process is gone the gateway answers UNAVAILABLE and
no request gets an internal error; every write acknowledged before, during or after the kill is
there afterwards; and the work a write started in the background (a knowledge ingest, a workflow
execution, a webhook delivery) finishes once the process is back, within 30 s with the default
leases of one and two minutes."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import Awaitable, Callable, Iterator

import pytest

from redline.cli.gateway import create_gateway
from redline.runtime.routing import SERVICES
from redline.testing.api import ApiClient, Response, Workspace
from redline.testing.receiver import WebhookReceiver
from tests.e2e.conftest import StartApp
from tests.e2e.faults.fleet import Fleet, running_fleet
from tests.e2e.webhook_flows import add_annotations, enable_webhooks, notified

# Starting five services and waiting for background work takes longer than a unit test may.
pytestmark = pytest.mark.timeout(300)

BURST = 18
IN_FLIGHT = 4
SETTLE_TIMEOUT_S = 120.0
# Work a killed worker held is done this soon after its restart, with the default leases of two
# minutes: it is free once the dead process's database session has ended.
RECOVERY_TIMEOUT_S = 30.0


@pytest.fixture(scope="module")
def slow_receiver(tmp_path_factory: pytest.TempPathFactory) -> WebhookReceiver:
    """A webhook receiver that takes a second to answer: deliveries stay in flight. (Started
    by each test that uses it; its authority is the fleet's to trust from the start.)"""
    return WebhookReceiver(tmp_path_factory.mktemp("receiver"), answer_after_s=1.0)


@pytest.fixture(scope="module")
def fleet(postgres_server_url: str, slow_receiver: WebhookReceiver) -> Iterator[Fleet]:
    """One fleet for the module: the tests take turns killing a service, and each leaves the
    fleet whole again."""
    # Default settings, but for the receivers it may send to: a killed worker's ingest, step or
    # delivery is taken up as soon as its database session ends, not when its lease runs out.
    receivers = {
        "REDLINE_WEBHOOK_ALLOW": "127.0.0.1",
        "REDLINE_WEBHOOK_CA_FILE": str(slow_receiver.ca_file),
    }
    with running_fleet(postgres_server_url, receivers) as started:
        yield started


@pytest.fixture
async def gateway(fleet: Fleet, start_app: StartApp) -> ApiClient:
    for service in SERVICES:
        await fleet.ready(service)
    return await start_app(create_gateway(fleet.upstreams))


Write = Callable[[ApiClient, Workspace, int], Awaitable[Response]]


async def burst_with_a_kill(
    fleet: Fleet, api: ApiClient, ws: Workspace, service: str, write: Write
) -> dict[int, Response]:
    """`BURST` writes, `IN_FLIGHT` at a time; once a third are answered the service is killed,
    and started again once the next third are."""
    answers: dict[int, Response] = {}
    queue: asyncio.Queue[int] = asyncio.Queue()
    for n in range(BURST):
        queue.put_nowait(n)
    killed = asyncio.Event()
    back = asyncio.Event()

    async def worker() -> None:
        while not queue.empty():
            n = queue.get_nowait()
            answers[n] = await write(api, ws, n)
            if len(answers) >= BURST // 3 and not killed.is_set():
                killed.set()
                await asyncio.to_thread(fleet.kill, service)
            elif len(answers) >= 2 * BURST // 3 and not back.is_set():
                back.set()
                fleet.start(service)
                await fleet.ready(service)

    await asyncio.gather(*(worker() for _ in range(IN_FLIGHT)))
    return answers


def acknowledged(answers: dict[int, Response]) -> list[int]:
    """The writes that were answered 200; every other answer must be UNAVAILABLE."""
    for n, answer in answers.items():
        if answer.status != 200:
            assert answer.status == 503, (n, answer.status, answer.body)
            assert answer.body["error"]["status"] == "UNAVAILABLE", answer.body
    done = sorted(n for n, answer in answers.items() if answer.status == 200)
    assert len(done) >= BURST // 3, answers
    return done


async def add_user(api: ApiClient, ws: Workspace, n: int) -> Response:
    body = {"organizationId": "acme", "createOrganization": True, "users": [{"userId": f"u{n}"}]}
    return await api.post("/v2/users/add", body, headers=ws.key_headers)


async def add_annotation(api: ApiClient, ws: Workspace, n: int) -> Response:
    body = {
        "organizationId": "acme",
        "documentId": "d1",
        "createOrganization": True,
        "createDocument": True,
        "commentAnnotations": [
            {"annotationId": f"a{n}", "commentData": [{"from": {"userId": "u"}}]}
        ],
    }
    return await api.post("/v2/commentannotations/add", body, headers=ws.key_headers)


async def add_activity(api: ApiClient, ws: Workspace, n: int) -> Response:
    activity = {
        "id": f"act{n}",
        "featureType": "custom",
        "actionType": "custom.done",
        "targetEntityId": "t",
        "actionUser": {"userId": "u"},
    }
    body = {"organizationId": "acme", "documentId": "d1", "activities": [activity]}
    return await api.post("/v2/activities/add", body, headers=ws.key_headers)


async def ingest(api: ApiClient, ws: Workspace, n: int) -> Response:
    text = f"Policy {n}: every contract over {n} thousand needs two approvals.\n".encode()
    file = {
        "base64": base64.b64encode(text).decode(),
        "mimeType": "text/plain",
        "fileName": f"policy-{n}.txt",
        "fileSize": len(text),
    }
    body = {"source": "inline", "file": file}
    return await api.post("/v2/memory/knowledge/ingest", body, headers=ws.key_headers)


MOCK_CHAIN = {
    "definitionId": "chain",
    "name": "chain",
    "nodes": [
        {
            "nodeId": f"n{i}",
            "type": "agent",
            "config": {"agentId": "__mock__", "url": "https://example.com/page"},
        }
        for i in range(3)
    ],
    "edges": [
        {"from": "n0", "to": "n1", "on": "approve"},
        {"from": "n1", "to": "n2", "on": "approve"},
    ],
}


async def dispatch(api: ApiClient, ws: Workspace, n: int) -> Response:
    body = {"definitionId": "chain", "idempotencyKey": f"run-{n}"}
    return await api.post("/v2/workflow/executions/dispatch", body, headers=ws.key_headers)


async def settle(check: Callable[[], Awaitable[bool]], timeout_s: float = SETTLE_TIMEOUT_S) -> None:
    async with asyncio.timeout(timeout_s):
        while not await check():  # noqa: ASYNC110 (the state is read over HTTP: polled)
            await asyncio.sleep(0.2)


@pytest.fixture
async def workspace(gateway: ApiClient) -> Workspace:
    return await gateway.create_workspace(f"kill-{uuid.uuid4().hex[:8]}@example.com")


async def test_identity_killed_mid_burst_keeps_every_acknowledged_member(
    fleet: Fleet, gateway: ApiClient, workspace: Workspace
) -> None:
    done = acknowledged(await burst_with_a_kill(fleet, gateway, workspace, "identity", add_user))

    listed = await gateway.post(
        "/v2/users/get", {"organizationId": "acme"}, headers=workspace.key_headers
    )
    assert listed.status == 200, listed.body
    assert {f"u{n}" for n in done} <= {u["userId"] for u in listed.data}


async def test_comments_killed_mid_burst_keeps_every_acknowledged_thread(
    fleet: Fleet, gateway: ApiClient, workspace: Workspace
) -> None:
    done = acknowledged(
        await burst_with_a_kill(fleet, gateway, workspace, "comments", add_annotation)
    )

    threads = await gateway.post(
        "/v2/commentannotations/get",
        {"organizationId": "acme", "documentId": "d1"},
        headers=workspace.key_headers,
    )
    assert threads.status == 200, threads.body
    assert {f"a{n}" for n in done} <= {a["annotationId"] for a in threads.data}


async def test_notify_killed_mid_burst_keeps_every_acknowledged_activity(
    fleet: Fleet, gateway: ApiClient, workspace: Workspace
) -> None:
    done = acknowledged(await burst_with_a_kill(fleet, gateway, workspace, "notify", add_activity))

    listed = await gateway.post(
        "/v2/activities/get",
        {"organizationId": "acme", "documentId": "d1", "pageSize": 1000},
        headers=workspace.key_headers,
    )
    assert listed.status == 200, listed.body
    assert {f"act{n}" for n in done} <= {a["id"] for a in listed.data}


async def test_memory_killed_mid_burst_finishes_every_acknowledged_ingest(
    fleet: Fleet, gateway: ApiClient, workspace: Workspace
) -> None:
    answers = await burst_with_a_kill(fleet, gateway, workspace, "memory", ingest)
    sources = [answers[n].body["result"]["sourceId"] for n in acknowledged(answers)]

    async def all_completed() -> bool:
        for source_id in sources:
            status = await gateway.post(
                "/v2/memory/knowledge/ingest-status",
                {"sourceId": source_id},
                headers=workspace.key_headers,
            )
            assert status.status == 200, status.body
            assert status.result["status"] in ("processing", "completed"), status.result
            if status.result["status"] != "completed":
                return False
        return True

    await settle(all_completed, RECOVERY_TIMEOUT_S)


async def test_workflow_killed_mid_burst_finishes_every_acknowledged_execution(
    fleet: Fleet, gateway: ApiClient, workspace: Workspace
) -> None:
    created = await gateway.post(
        "/v2/workflow/definitions/create", MOCK_CHAIN, headers=workspace.key_headers
    )
    assert created.status == 200, created.body
    answers = await burst_with_a_kill(fleet, gateway, workspace, "workflow", dispatch)
    executions = [answers[n].body["result"]["executionId"] for n in acknowledged(answers)]

    async def all_completed() -> bool:
        for execution_id in executions:
            got = await gateway.post(
                "/v2/workflow/executions/get",
                {"executionId": execution_id},
                headers=workspace.key_headers,
            )
            assert got.status == 200, got.body
            if got.result["status"] != "completed":
                return False
        return True

    await settle(all_completed, RECOVERY_TIMEOUT_S)


async def test_notify_killed_mid_delivery_delivers_everything_it_held(
    fleet: Fleet, gateway: ApiClient, workspace: Workspace, slow_receiver: WebhookReceiver
) -> None:
    await slow_receiver.start()
    try:
        await enable_webhooks(gateway, workspace, slow_receiver, processed=False)
        for n in range(6):
            await add_annotations(gateway, workspace, notified(), document_id=f"d{n}")

        async def statuses() -> list[str]:
            listed = await gateway.post(
                "/v2/webhooks/deliveries/list", {}, headers=workspace.key_headers
            )
            assert listed.status == 200, listed.body
            return [d["status"] for d in listed.data]

        async def all_queued() -> bool:
            return len(await statuses()) == 6

        async def all_succeeded() -> bool:
            found = await statuses()
            return len(found) == 6 and set(found) == {"succeeded"}

        # Every delivery queued (the events' part is JetStream's redelivery, not a claim), and
        # some in flight: the receiver holds each for a second.
        await settle(all_queued)
        await slow_receiver.wait_for(1, timeout_s=30)
        await asyncio.to_thread(fleet.kill, "notify")
        fleet.start("notify")
        await fleet.ready("notify")

        await settle(all_succeeded, RECOVERY_TIMEOUT_S)
        # Each delivery reached the receiver: those it was answering when notify died, twice.
        assert len(slow_receiver.counts()) == 6
    finally:
        await slow_receiver.stop()

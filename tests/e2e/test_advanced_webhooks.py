"""Advanced webhooks seen from a customer's receiver: each endpoint gets only the event types it
subscribed to, signed with its own secret in the Standard Webhooks scheme (checked with the
`standardwebhooks` package); a disabled endpoint gets nothing; every delivery is in the delivery
log, and a failed one is sent again from there."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from standardwebhooks.webhooks import Webhook

from redline.testing.api import ApiClient, Workspace
from redline.testing.receiver import Received, WebhookReceiver
from tests.api.stream_support import published
from tests.e2e.webhook_flows import add_annotations, comment, notified, ok

ENDPOINTS = "/v2/workspace/advancedwebhook/endpoints"
DELIVERIES = "/v2/webhooks/deliveries/list"
ORG_DOC = {"organizationId": "acme", "documentId": "d1"}


async def _endpoint(api: ApiClient, ws: Workspace, url: str, **fields: Any) -> tuple[str, str]:
    """A new endpoint's id and signing secret."""
    created = await ok(api, ws, f"{ENDPOINTS}/create", {"url": url, **fields})
    secret = await ok(api, ws, f"{ENDPOINTS}/secret/get", {"endpointId": created["id"]})
    return created["id"], secret["secret"]


async def _enabled(api: ApiClient) -> Workspace:
    ws = await api.create_workspace()
    await ok(api, ws, "/v2/workspace/advancedwebhookconfig/update", {"isEnabled": True})
    return ws


async def _comment_add_update_react(api: ApiClient, ws: Workspace) -> None:
    """An annotation, then a reply added, updated and reacted to."""
    (annotation,) = await add_annotations(api, ws, notified())
    (reply,) = await ok(
        api,
        ws,
        "/v2/commentannotations/comments/add",
        {**ORG_DOC, "annotationId": annotation, "commentData": [comment("bob", "Reply")]},
    )
    target = {**ORG_DOC, "annotationId": annotation, "commentId": reply}
    await ok(api, ws, "/v2/commentannotations/comments/update", {**target, "commentText": "Edit"})
    await ok(
        api,
        ws,
        "/v2/commentannotations/reactions/add",
        {**target, "icon": "heart", "user": {"userId": "carol"}},
    )


def _verified(request: Received, secret: str) -> Any:
    """The message, once its Standard Webhooks signature checks out (raises otherwise)."""
    return Webhook(secret).verify(request.body, request.headers)


async def _deliveries(api: ApiClient, ws: Workspace) -> list[dict[str, Any]]:
    listed = await api.post(DELIVERIES, {}, headers=ws.key_headers)
    assert listed.status == 200, listed.body
    return list(listed.data)


async def _log_when(
    api: ApiClient, ws: Workspace, done: Callable[[list[dict[str, Any]]], bool]
) -> list[dict[str, Any]]:
    """The delivery log, newest first, once `done` says so of it."""
    async with asyncio.timeout(30):
        while True:
            log = await _deliveries(api, ws)
            if done(log):
                return log
            await asyncio.sleep(0.05)


def _settled(log: list[dict[str, Any]]) -> bool:
    return all(d["status"] in ("succeeded", "failed") for d in log)


async def test_an_endpoint_filtered_to_comment_add_gets_only_those(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await _enabled(api)
    adds, adds_secret = await _endpoint(api, ws, receiver.url("/adds"), filterTypes=["comment.add"])
    everything, everything_secret = await _endpoint(api, ws, receiver.url("/all"))
    off, _ = await _endpoint(api, ws, receiver.url("/off"), disabled=True)

    await _comment_add_update_react(api, ws)
    # The unfiltered endpoint hears all four events: by then every delivery has been queued.
    await receiver.wait_for(4, path="/all")
    await receiver.wait_for(1, path="/adds")

    all_types = [_verified(r, everything_secret)["event"] for r in receiver.delivered("/all")]
    assert all_types == [
        "comment_annotation.add",
        "comment.add",
        "comment.update",
        "comment.reaction_add",
    ]
    [only] = receiver.delivered("/adds")
    message = _verified(only, adds_secret)
    assert message["event"] == "comment.add"
    assert message["data"]["targetComment"]["commentText"] == "Reply"
    assert message["data"]["metadata"]["document"] == {"documentId": "d1"}
    assert message["data"]["webhookId"] == only.headers["webhook-id"]
    assert receiver.delivered("/off") == []
    # Each endpoint's secret is its own: another endpoint's does not verify the message.
    assert _is_refused(only, everything_secret)

    # The receiver answered; the results are recorded a moment later.
    log = await _log_when(api, ws, _settled)
    by_target: dict[str, list[dict[str, Any]]] = {}
    for delivery in log:
        by_target.setdefault(delivery["target"], []).append(delivery)
    assert set(by_target) == {adds, everything}
    [logged] = by_target[adds]
    assert (logged["deliveryId"], logged["eventType"]) == (
        only.headers["webhook-id"],
        "comment.add",
    )
    assert logged["url"] == receiver.url("/adds")
    assert all(d["status"] == "succeeded" for d in log), log
    assert off not in by_target


def _is_refused(request: Received, secret: str) -> bool:
    try:
        _verified(request, secret)
    except Exception:
        return True
    return False


async def test_a_disabled_endpoint_receives_nothing_more(
    api: ApiClient, receiver: WebhookReceiver, database_url: str, nats_url: str
) -> None:
    ws = await _enabled(api)
    endpoint, _ = await _endpoint(api, ws, receiver.url("/paused"))
    _, barrier_secret = await _endpoint(api, ws, receiver.url("/barrier"))
    await add_annotations(api, ws, notified())
    await receiver.wait_for(1, path="/paused")

    await ok(api, ws, f"{ENDPOINTS}/update", {"endpointId": endpoint, "disabled": True})
    # The change is on the stream, which tells notify to read the key's endpoints again.
    await published(database_url, nats_url, "identity")
    await add_annotations(api, ws, notified(comment(text="After pausing")))
    await receiver.wait_for(2, path="/barrier")

    assert len(receiver.delivered("/paused")) == 1
    second = receiver.delivered("/barrier")[1]
    assert _verified(second, barrier_secret)["event"] == "comment_annotation.add"
    # Queued before notify heard of the change, a delivery fails unsent at send time instead.
    log = await _log_when(api, ws, _settled)
    late = [d for d in log if d["target"] == endpoint]
    assert [d["status"] for d in late] in (["succeeded"], ["failed", "succeeded"]), late
    assert all(d["attempts"] <= 1 for d in late)
    assert len(receiver.delivered("/paused")) == 1


async def test_a_failed_delivery_is_sent_again_from_the_log(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    ws = await _enabled(api)
    _, secret = await _endpoint(api, ws, receiver.url("/flaky"))
    receiver.scripted = [500] * 6  # the first try and its five retries
    await add_annotations(api, ws, notified())
    [failed] = await _log_when(api, ws, lambda log: [d["status"] for d in log] == ["failed"])
    assert failed["attempts"] == 6

    retried = await ok(
        api, ws, "/v2/webhooks/deliveries/retry", {"deliveryIds": [failed["deliveryId"]]}
    )
    await receiver.wait_for(1, path="/flaky")

    assert retried[failed["deliveryId"]]["success"] is True
    last = receiver.requests[-1]
    assert last.headers["webhook-id"] == failed["deliveryId"]
    assert _verified(last, secret)["event"] == "comment_annotation.add"
    [succeeded] = await _log_when(api, ws, lambda log: log[0]["status"] == "succeeded")
    assert succeeded["attempts"] == 7


async def test_an_endpoints_rate_limit_spaces_a_burst_and_loses_nothing(
    api: ApiClient, receiver: WebhookReceiver
) -> None:
    rate, burst = 2, 6
    ws = await _enabled(api)
    await _endpoint(api, ws, receiver.url("/paced"), rateLimit=rate)

    await add_annotations(api, ws, *(notified() for _ in range(burst)))
    await receiver.wait_for(burst, path="/paced", timeout_s=30)

    arrivals = receiver.delivered("/paced")
    assert len(arrivals) == burst
    assert all(count == 1 for count in receiver.counts().values())
    at = sorted(r.at for r in arrivals)
    # No more than `rate` arrivals within any second (a request may reach the receiver up to
    # 0.1 s after its slot on a busy machine).
    assert min(at[i + rate] - at[i] for i in range(burst - rate)) >= 0.9
    assert at[-1] - at[0] >= (burst - 1) / rate - 0.1
    log = await _log_when(api, ws, lambda log: len(log) == burst and _settled(log))
    assert {d["status"] for d in log} == {"succeeded"}

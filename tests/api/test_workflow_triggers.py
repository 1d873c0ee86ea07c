"""Inbound webhook triggers: POST /v2/workflow/webhook-inbound/trigger with a raw JSON body, as
each provider signs and names it, starting runs of the definition that declares the trigger."""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import asyncpg
import msgspec
import pytest

from redline.testing.api import ApiClient, Response, assert_failure
from redline.workflow.triggers.service import REFUSED
from tests.api.workflow_support import Workflow, definition, mock_agent

Json = dict[str, Any]

PATH = "/v2/workflow/webhook-inbound/trigger"
SECRET = "trigger-secret-0123456789"
MIB = 1 << 20


def signature(body: bytes, algorithm: str = "sha256", secret: str = SECRET) -> str:
    return hmac.new(secret.encode(), body, algorithm).hexdigest()


def inbound_trigger(trigger_id: str, **webhook: Any) -> Json:
    return {
        "triggerId": trigger_id,
        "inboundWebhook": {"authMode": "hmac", "secret": SECRET, **webhook},
    }


def triggered(definition_id: str, *triggers: Json, **extra: Any) -> Json:
    """A definition whose one node (the `__mock__` agent) approves at once."""
    return definition(definition_id, [mock_agent("check")], [], triggers=list(triggers), **extra)


def velt_body(definition_id: str, trigger_id: str, **fields: Any) -> bytes:
    return msgspec.json.encode({"definitionId": definition_id, "triggerId": trigger_id, **fields})


class Sender:
    """An external system posting to the endpoint with one workspace's API key."""

    def __init__(self, flow: Workflow) -> None:
        self.flow = flow

    async def post(
        self,
        body: bytes,
        headers: dict[str, str] | None = None,
        *,
        key_header: bool = True,
        query: dict[str, str] | None = None,
    ) -> Response:
        sent = {"x-redline-api-key": self.flow.workspace.api_key} if key_header else {}
        path = f"{PATH}?{urlencode(query)}" if query else PATH
        return await self.flow.api.post(path, raw=body, headers={**sent, **(headers or {})})

    async def accepted(
        self,
        body: bytes,
        headers: dict[str, str] | None = None,
        query: dict[str, str] | None = None,
    ) -> Json:
        response = await self.post(body, headers, query=query)
        assert response.status == 200, response.body
        answer: Json = response.body
        assert set(answer) == {"ok", "code", "executionId", "deduplicated"}, answer
        assert answer["ok"] is True
        assert answer["code"] == "accepted"
        return answer


@pytest.fixture
async def flow(api: ApiClient) -> Workflow:
    return Workflow(api, await api.create_workspace())


@pytest.fixture
def sender(flow: Workflow) -> Sender:
    return Sender(flow)


@pytest.fixture
async def runs(db: asyncpg.Connection) -> Any:
    """What a run was started with, as stored: its trigger context and scope ids."""

    async def stored(execution_id: str) -> Json:
        row = await db.fetchrow(
            "SELECT trigger_context, organization_id, document_id FROM workflow.execution"
            " WHERE execution_id = $1",
            execution_id,
        )
        assert row is not None
        return {**dict(row), "trigger_context": json.loads(row["trigger_context"])}

    return stored


async def test_a_velt_delivery_signed_with_the_secret_starts_a_run_of_its_payload(
    flow: Workflow, sender: Sender, runs: Any
) -> None:
    await flow.create(triggered("deploy-review", inbound_trigger("ci")))
    body = velt_body("deploy-review", "ci", type="deploy", payload={"sha": "abc123", "n": 2})

    answer = await sender.accepted(body, {"x-redline-signature": "sha256=" + signature(body)})

    assert answer["deduplicated"] is False
    execution = await flow.ended(answer["executionId"])
    assert execution["status"] == "completed"
    assert execution["definitionId"] == "deploy-review"
    # No source event id: the key is the digest of what the signature covers.
    digest = hashlib.sha256(body).hexdigest()
    assert execution["idempotencyKey"] == f"trig:ci:deploy-review:signed-{digest}"
    assert (await runs(answer["executionId"]))["trigger_context"] == {"sha": "abc123", "n": 2}


async def test_a_missing_or_wrong_signature_is_unauthenticated(
    flow: Workflow, sender: Sender
) -> None:
    await flow.create(triggered("deploy-review", inbound_trigger("ci")))
    body = velt_body("deploy-review", "ci", payload={})
    for headers in (
        {},
        {"x-redline-signature": "sha256=" + signature(body, secret="another-secret-0123456")},
        {"x-redline-signature": "sha256=" + signature(body + b" ")},
        {"x-redline-signature": signature(body)},
        {"x-redline-signature": "sha256=" + signature(body, "sha1")},
        {"authorization": f"Bearer {SECRET}"},
    ):
        assert_failure(await sender.post(body, headers), 401, "UNAUTHENTICATED")
    assert (await flow.ok("executions/list", {}))["items"] == []


async def test_a_bearer_trigger_takes_the_secret_as_a_bearer_token(
    flow: Workflow, sender: Sender
) -> None:
    await flow.create(triggered("deploy-review", inbound_trigger("ci", authMode="bearer")))
    body = velt_body("deploy-review", "ci", payload={"a": 1})

    await sender.accepted(body, {"authorization": f"Bearer {SECRET}"})
    for wrong in (f"Bearer {SECRET}x", f"Basic {SECRET}", SECRET):
        assert_failure(await sender.post(body, {"authorization": wrong}), 401, "UNAUTHENTICATED")
    signed = {"x-redline-signature": "sha256=" + signature(body)}
    assert_failure(await sender.post(body, signed), 401, "UNAUTHENTICATED")


async def test_github_deliveries_are_verified_filtered_and_deduplicated(
    flow: Workflow, sender: Sender, runs: Any
) -> None:
    trigger = inbound_trigger("ci-build", provider="github", allowedEvents=["push"])
    await flow.create(triggered("ci-flow", trigger))
    ids = {"definitionId": "ci-flow", "triggerId": "ci-build"}
    body = msgspec.json.encode({"ref": "refs/heads/main", "after": "abc"})
    headers = {
        "x-hub-signature-256": "sha256=" + signature(body),
        "x-github-event": "push",
        "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    }

    first = await sender.accepted(body, headers, query=ids)
    again = await sender.accepted(body, headers, query=ids)

    assert first["deduplicated"] is False
    assert again == {**first, "deduplicated": True}
    execution = await flow.execution(first["executionId"])
    assert execution["idempotencyKey"] == (
        "trig:ci-build:ci-flow:72d3162e-cc78-11e3-81ab-4c9367dc0958"
    )
    # Every provider but velt: the whole body is the trigger context.
    assert (await runs(first["executionId"]))["trigger_context"] == {
        "ref": "refs/heads/main",
        "after": "abc",
    }
    # An event not allowed, or none named at all: ignored (the gate fails closed).
    for event in ({"x-github-event": "issues"}, {"x-github-event": ""}):
        ignored = await sender.post(body, {**headers, **event}, query=ids)
        assert (ignored.status, ignored.body) == (200, {"ok": False, "code": "event-ignored"})
    del headers["x-github-event"]
    ignored = await sender.post(body, headers, query=ids)
    assert (ignored.status, ignored.body) == (200, {"ok": False, "code": "event-ignored"})
    # The signature is checked before the event is looked at.
    headers["x-hub-signature-256"] = "sha256=" + signature(b"{}")
    assert_failure(await sender.post(body, headers, query=ids), 401, "UNAUTHENTICATED")
    assert len((await flow.ok("executions/list", {}))["items"]) == 1


async def test_vercel_signs_with_sha1_and_names_the_event_in_a_header_or_the_body(
    flow: Workflow, sender: Sender, runs: Any
) -> None:
    trigger = inbound_trigger(
        "deploys",
        provider="vercel",
        allowedEvents=["deployment.succeeded"],
        payloadMapping="wrap",
    )
    await flow.create(triggered("vercel-scan", trigger))
    ids = {"definitionId": "vercel-scan", "triggerId": "deploys"}
    body = msgspec.json.encode({"type": "deployment.succeeded", "payload": {"url": "x.app"}})
    signed = {"x-vercel-signature": signature(body, "sha1")}

    by_body = await sender.accepted(body, signed, query=ids)
    later = msgspec.json.encode({"type": "deployment.succeeded", "payload": {"url": "y.app"}})
    by_header = await sender.accepted(
        later,
        {
            "x-vercel-signature": signature(later, "sha1"),
            "x-vercel-deployment-event": "deployment.succeeded",
        },
        query=ids,
    )
    ignored = await sender.post(
        body, {**signed, "x-vercel-deployment-event": "deployment.error"}, query=ids
    )

    assert ignored.body == {"ok": False, "code": "event-ignored"}
    assert by_body["executionId"] != by_header["executionId"]
    # `wrap` nests the extracted payload under `source`.
    assert (await runs(by_body["executionId"]))["trigger_context"] == {
        "source": {"type": "deployment.succeeded", "payload": {"url": "x.app"}}
    }
    sha256_signed = {"x-vercel-signature": signature(body)}
    assert_failure(await sender.post(body, sha256_signed, query=ids), 401, "UNAUTHENTICATED")


async def test_a_custom_provider_uses_its_configured_header_algorithm_prefix_and_event(
    flow: Workflow, sender: Sender
) -> None:
    trigger = inbound_trigger(
        "billing",
        provider="custom",
        signatureHeader="X-Billing-Signature",
        signatureAlgorithm="sha1",
        signaturePrefix="v1=",
        eventNameHeader="X-Billing-Event",
        allowedEvents=["invoice.paid"],
        idempotencyBodyPath="event.id",
    )
    await flow.create(triggered("billing-flow", trigger))
    ids = {"definitionId": "billing-flow", "triggerId": "billing"}
    body = msgspec.json.encode({"event": {"id": 90210, "amount": 5}})
    headers = {
        "x-billing-signature": "v1=" + signature(body, "sha1"),
        "x-billing-event": "invoice.paid",
    }

    first = await sender.accepted(body, headers, query=ids)
    again = await sender.accepted(body, headers, query=ids)

    assert again == {**first, "deduplicated": True}
    execution = await flow.execution(first["executionId"])
    assert execution["idempotencyKey"] == "trig:billing:billing-flow:90210"
    no_event = await sender.post(
        body, {"x-billing-signature": headers["x-billing-signature"]}, query=ids
    )
    assert no_event.body == {"ok": False, "code": "event-ignored"}
    wrong_prefix = {**headers, "x-billing-signature": "sha1=" + signature(body, "sha1")}
    assert_failure(await sender.post(body, wrong_prefix, query=ids), 401, "UNAUTHENTICATED")


async def test_an_event_id_outside_the_key_pattern_is_hashed_the_same_way_each_time(
    flow: Workflow, sender: Sender
) -> None:
    trigger = inbound_trigger("ci", idempotencyHeader="x-event-id")
    await flow.create(triggered("deploy-review", trigger))
    body = velt_body("deploy-review", "ci", payload={})
    headers = {"x-redline-signature": "sha256=" + signature(body), "x-event-id": "evt #1 / main"}

    first = await sender.accepted(body, headers)
    again = await sender.accepted(body, headers)
    other = await sender.accepted(body, {**headers, "x-event-id": "evt #2 / main"})

    assert again == {**first, "deduplicated": True}
    assert other["executionId"] != first["executionId"]
    key = (await flow.execution(first["executionId"]))["idempotencyKey"]
    assert key.startswith("trig:ci:deploy-review.")


async def test_a_signed_delivery_sent_again_and_again_starts_one_run(
    flow: Workflow, sender: Sender
) -> None:
    # A github trigger naming its own id source does not fall back to x-github-delivery; with
    # that header absent, the signed body is what tells deliveries apart.
    trigger = inbound_trigger("ci", provider="github", idempotencyHeader="x-request-id")
    await flow.create(triggered("ci-flow", trigger))
    body = b'{"zen":"Keep it logically awesome."}'
    headers = {"x-hub-signature-256": "sha256=" + signature(body), "x-github-delivery": "d-1"}
    ids = {"definitionId": "ci-flow", "triggerId": "ci"}

    answers = [await sender.accepted(body, headers, query=ids) for _ in range(10)]
    upper = {**headers, "x-hub-signature-256": "sha256=" + signature(body).upper()}
    answers.append(await sender.accepted(body, upper, query=ids))

    assert {a["executionId"] for a in answers} == {answers[0]["executionId"]}
    assert [a["deduplicated"] for a in answers] == [False] + [True] * 10
    assert len((await flow.ok("executions/list", {}))["items"]) == 1
    other = msgspec.json.encode({"zen": "Design for failure."})
    changed = {**headers, "x-hub-signature-256": "sha256=" + signature(other)}
    assert (await sender.accepted(other, changed, query=ids))["deduplicated"] is False


async def test_without_an_event_id_each_bearer_delivery_starts_its_own_run(
    flow: Workflow, sender: Sender
) -> None:
    # A bearer secret signs nothing: a copy of the request is the secret itself, so there is
    # nothing to tell a copy from a new request by.
    await flow.create(triggered("ci-flow", inbound_trigger("ci", authMode="bearer")))
    body = velt_body("ci-flow", "ci", payload={})

    first = await sender.accepted(body, {"authorization": f"Bearer {SECRET}"})
    second = await sender.accepted(body, {"authorization": f"Bearer {SECRET}"})

    assert first["executionId"] != second["executionId"]
    assert not first["deduplicated"]
    assert not second["deduplicated"]


def stripe_signature(body: bytes, t: int) -> str:
    signed = hmac.new(SECRET.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={signed}"


async def test_stripe_deliveries_are_taken_within_the_replay_window_and_once_per_event(
    flow: Workflow, sender: Sender
) -> None:
    trigger = inbound_trigger("billing", provider="stripe", allowedEvents=["invoice.paid"])
    await flow.create(triggered("billing-flow", trigger))
    ids = {"definitionId": "billing-flow", "triggerId": "billing"}
    body = msgspec.json.encode({"id": "evt_1", "type": "invoice.paid", "data": {}})
    now = int(time.time())

    first = await sender.accepted(body, {"stripe-signature": stripe_signature(body, now)}, ids)
    # Stripe retries an event with a new time and signature; the event id finds the first run.
    retried = {"stripe-signature": stripe_signature(body, now - 60)}
    assert await sender.accepted(body, retried, ids) == {**first, "deduplicated": True}
    key = (await flow.execution(first["executionId"]))["idempotencyKey"]
    assert key == "trig:billing:billing-flow:evt_1"
    # Outside the default five minutes, either way: refused, with the one refusal answer.
    for t in (now - 360, now + 360):
        stale = {"stripe-signature": stripe_signature(body, t)}
        error = assert_failure(await sender.post(body, stale, query=ids), 401, "UNAUTHENTICATED")
        assert error["message"] == REFUSED
    # The time is signed: an old signature under a fresh time does not verify.
    old = stripe_signature(body, now - 3600).partition(",")[2]
    moved = {"stripe-signature": f"t={now},{old}"}
    assert_failure(await sender.post(body, moved, query=ids), 401, "UNAUTHENTICATED")
    assert len((await flow.ok("executions/list", {}))["items"]) == 1


async def test_the_replay_window_is_a_setting(start_api: Any) -> None:
    api = await start_api(trigger_replay_window_s=30)
    flow = Workflow(api, await api.create_workspace())
    await flow.create(triggered("billing-flow", inbound_trigger("billing", provider="stripe")))
    ids = {"definitionId": "billing-flow", "triggerId": "billing"}
    body = msgspec.json.encode({"id": "evt_2", "type": "invoice.paid"})
    now = int(time.time())

    late = {"stripe-signature": stripe_signature(body, now - 120)}
    assert_failure(await Sender(flow).post(body, late, query=ids), 401, "UNAUTHENTICATED")
    fresh = {"stripe-signature": stripe_signature(body, now)}
    assert (await Sender(flow).accepted(body, fresh, ids))["deduplicated"] is False


async def test_standard_webhooks_deliveries_are_taken_within_the_window_once_per_id(
    flow: Workflow, sender: Sender
) -> None:
    key = b"0123456789abcdef0123456789abcdef"
    secret = "whsec_" + base64.b64encode(key).decode()
    trigger = {
        "triggerId": "events",
        "inboundWebhook": {
            "authMode": "hmac",
            "secret": secret,
            "provider": "standard-webhooks",
        },
    }
    await flow.create(triggered("events-flow", trigger))
    ids = {"definitionId": "events-flow", "triggerId": "events"}
    body = msgspec.json.encode({"type": "user.created", "data": {"id": "u1"}})

    def signed(msg_id: str, t: int) -> dict[str, str]:
        content = f"{msg_id}.{t}.".encode() + body
        mac = base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode()
        return {"webhook-id": msg_id, "webhook-timestamp": str(t), "webhook-signature": f"v1,{mac}"}

    now = int(time.time())
    first = await sender.accepted(body, signed("msg_1", now), ids)
    again = await sender.accepted(body, signed("msg_1", now - 30), ids)
    other = await sender.accepted(body, signed("msg_2", now), ids)

    assert again == {**first, "deduplicated": True}
    assert other["executionId"] != first["executionId"]
    stale = signed("msg_3", now - 301)
    assert_failure(await sender.post(body, stale, query=ids), 401, "UNAUTHENTICATED")
    assert len((await flow.ok("executions/list", {}))["items"]) == 2


async def test_each_trigger_takes_a_bounded_number_of_deliveries_a_minute(
    start_api: Any,
) -> None:
    api = await start_api(trigger_rate_limit=3)
    flow = Workflow(api, await api.create_workspace())
    await flow.create(
        triggered(
            "deploy-review",
            inbound_trigger("ci", authMode="bearer"),
            inbound_trigger("cd", authMode="bearer"),
        )
    )
    sender = Sender(flow)
    bearer = {"authorization": f"Bearer {SECRET}"}
    body = velt_body("deploy-review", "ci", payload={})

    for _ in range(3):
        await sender.accepted(body, bearer)
    refused = await sender.post(body, bearer)
    error = assert_failure(refused, 429, "RESOURCE_EXHAUSTED")
    assert error["message"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    # Another trigger has its own budget.
    await sender.accepted(velt_body("deploy-review", "cd", payload={}), bearer)
    # Strangers cannot spend a trigger's budget: only authenticated deliveries count, and a
    # refused one gets the refusal it would get anyway.
    wrong = {"authorization": f"Bearer {SECRET}-wrong"}
    other = velt_body("deploy-review", "cd", payload={})
    for _ in range(5):
        assert_failure(await sender.post(other, wrong), 401, "UNAUTHENTICATED")
    await sender.accepted(other, bearer)
    assert len((await flow.ok("executions/list", {}))["items"]) == 5


async def test_an_address_that_keeps_failing_the_signature_waits_and_a_signed_delivery_is_taken(
    start_api: Any,
) -> None:
    api = await start_api(rate_limit_auth_failures=2)
    flow = Workflow(api, await api.create_workspace())
    await flow.create(triggered("deploy-review", inbound_trigger("ci")))
    sender = Sender(flow)
    body = velt_body("deploy-review", "ci", payload={})
    forged = {"x-redline-signature": "sha256=" + signature(body, secret="a-guess-0123456789")}
    for _ in range(2):
        assert_failure(await sender.post(body, forged), 401, "UNAUTHENTICATED")

    limited = await sender.post(body, forged)
    assert_failure(limited, 429, "RESOURCE_EXHAUSTED")
    assert int(limited.headers["Retry-After"]) >= 1
    # The provider's own deliveries come from addresses it shares with others: one that
    # verifies is taken whoever failed from there.
    await sender.accepted(body, {"x-redline-signature": "sha256=" + signature(body)})


async def test_a_run_inherits_the_definition_scope_whatever_the_body_says(
    flow: Workflow, sender: Sender, runs: Any
) -> None:
    await flow.create(
        triggered(
            "doc-review",
            inbound_trigger("ci", authMode="bearer"),
            scope={"level": "document", "organizationId": "acme", "documentId": "spec-7"},
        )
    )
    body = velt_body(
        "doc-review", "ci", organizationId="other", documentId="d", payload={"documentId": "x"}
    )

    answer = await sender.accepted(body, {"authorization": f"Bearer {SECRET}"})

    stored = await runs(answer["executionId"])
    assert (stored["organization_id"], stored["document_id"]) == ("acme", "spec-7")


async def test_the_api_key_comes_from_the_header_or_else_the_query(
    api: ApiClient, flow: Workflow, sender: Sender
) -> None:
    await flow.create(triggered("deploy-review", inbound_trigger("ci", authMode="bearer")))
    body = velt_body("deploy-review", "ci", payload={})
    bearer = {"authorization": f"Bearer {SECRET}"}
    key = flow.workspace.api_key
    other_key = (await api.create_workspace("other@example.com")).api_key

    by_query = await sender.post(body, bearer, key_header=False, query={"apiKey": key})
    assert by_query.status == 200, by_query.body
    # The header wins over the query string.
    assert (await sender.post(body, bearer, query={"apiKey": other_key})).status == 200
    wrong_header = {**bearer, "x-redline-api-key": other_key}
    assert_failure(
        await sender.post(body, wrong_header, key_header=False, query={"apiKey": key}),
        401,
        "UNAUTHENTICATED",
    )
    missing = assert_failure(
        await sender.post(body, bearer, key_header=False), 400, "INVALID_ARGUMENT"
    )
    assert missing["details"]["issues"][0]["code"] == "missing_field"


async def test_an_unknown_trigger_and_a_wrong_secret_get_one_answer(
    api: ApiClient, flow: Workflow, sender: Sender
) -> None:
    schedule = {
        "triggerId": "nightly",
        "schedule": {"cron": "0 2 * * *", "timezone": "UTC", "enabled": True},
    }
    await flow.create(
        triggered("deploy-review", inbound_trigger("ci", authMode="bearer"), schedule)
    )
    await flow.create(triggered("signed", inbound_trigger("ci")))
    await flow.create(triggered("retired", inbound_trigger("ci", authMode="bearer")))
    await flow.ok("definitions/delete", {"definitionId": "retired"})
    bearer = {"authorization": f"Bearer {SECRET}"}
    wrong = {"authorization": f"Bearer {SECRET}-not-it"}
    stranger = Sender(Workflow(api, await api.create_workspace("stranger@example.com")))

    answers = []
    for who, definition_id, trigger_id, headers in (
        (sender, "deploy-review", "cd", bearer),  # no such trigger
        (sender, "deploy-review", "nightly", bearer),  # a schedule, not an inbound webhook
        (sender, "nowhere", "ci", bearer),  # no such definition
        (sender, "retired", "ci", bearer),  # deleted
        (stranger, "deploy-review", "ci", bearer),  # another workspace's definition
        (sender, "deploy-review", "ci", wrong),  # the trigger exists; the secret is wrong
        (sender, "deploy-review", "ci", {}),  # the trigger exists; no secret at all
        (sender, "signed", "ci", {"x-redline-signature": "sha256=00"}),  # a wrong signature
    ):
        response = await who.post(velt_body(definition_id, trigger_id, payload={}), headers)
        answers.append((response.status, response.body))
    assert answers[0][0] == 401
    assert answers[0][1]["error"]["status"] == "UNAUTHENTICATED"
    assert answers[0][1]["error"]["message"] == REFUSED
    # Status, code and message: word for word the same, whatever was wrong.
    assert all(answer == answers[0] for answer in answers), answers


async def test_no_input_gets_a_server_error(flow: Workflow, sender: Sender) -> None:
    await flow.create(triggered("deploy-review", inbound_trigger("ci")))
    await flow.create(triggered("billing-flow", inbound_trigger("ci", provider="stripe")))
    body = velt_body("deploy-review", "ci", payload={})
    weird_ids = ["\x00", "x" * 5000, "\u00e9\u2028", "'; DROP TABLE x; --", "%", "a\x00b"]
    cases: list[tuple[bytes, dict[str, str], dict[str, str] | None]] = []
    for weird in weird_ids:
        cases.append((velt_body(weird, weird, payload={}), {}, None))
        cases.append((body, {}, {"definitionId": weird, "triggerId": weird}))
        cases.append((body, {}, {"apiKey": weird}))
    for value in ("t=\uff11,v1=00", "t=99999999999999999999,v1=" + "0" * 64, ",,,=", "v1=" * 500):
        cases.append(
            (
                b'{"id":"evt"}',
                {"stripe-signature": value},
                {"definitionId": "billing-flow", "triggerId": "ci"},
            )
        )
    cases.append((body, {"x-redline-signature": "sha256=" + "\u00e9" * 64}, None))
    cases.append((b"\xff\xfe{", {}, None))
    cases.append((b'{"definitionId": {"a": 1}, "triggerId": [1]}', {}, None))
    for sent, headers, query in cases:
        response = await sender.post(sent, headers, query=query)
        assert 400 <= response.status < 500, (sent[:40], headers, query, response.body)


async def test_ids_and_bodies_the_endpoint_cannot_read_are_invalid(
    flow: Workflow, sender: Sender
) -> None:
    await flow.create(triggered("deploy-review", inbound_trigger("ci", authMode="bearer")))
    bearer = {"authorization": f"Bearer {SECRET}"}
    for body in (b"", b"not json", b"[1, 2]", velt_body("deploy-review", "")):
        assert_failure(await sender.post(body, bearer), 400, "INVALID_ARGUMENT")
    payload = velt_body("deploy-review", "ci", payload=[1])
    error = assert_failure(await sender.post(payload, bearer), 400, "INVALID_ARGUMENT")
    assert error["details"]["issues"][0]["path"] == "payload"


async def test_a_body_over_one_mebibyte_is_refused_with_413(flow: Workflow, sender: Sender) -> None:
    await flow.create(triggered("deploy-review", inbound_trigger("ci", authMode="bearer")))
    headers = {"x-redline-api-key": flow.workspace.api_key, "authorization": f"Bearer {SECRET}"}
    start = velt_body("deploy-review", "ci", payload={"pad": ""})[:-3]
    exactly = start + b"x" * (MIB - len(start) - 3) + b'"}}'
    assert len(exactly) == MIB

    async def post(data: Any) -> tuple[int, Json]:
        # Streamed: aiohttp warns when a large body is passed as bytes.
        url = flow.api.base_url + PATH
        async with flow.api.session.post(url, data=data, headers=headers) as response:
            return response.status, await response.json()

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(20):
            yield b" " * (64 << 10)

    status, accepted = await post(io.BytesIO(exactly))
    assert (status, accepted["code"]) == (200, "accepted")

    for data in (io.BytesIO(exactly[:-3] + b'x"}}'), chunks()):
        # Known from Content-Length, or (chunked) found while reading.
        status, refused = await post(data)
        assert status == 413
        assert set(refused) == {"ok", "code", "error"}
        assert (refused["ok"], refused["code"]) == (False, "body-too-large")
        assert refused["error"]["status"] == "INVALID_ARGUMENT"

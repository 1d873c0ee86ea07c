"""No tenant can hurt another: tenant A attacks, bounded in count and time, while tenant B keeps
a steady load of comment adds and reads, knowledge searches and workflow runs. B sees no error
and keeps its p95 and p99 within twice those of the same load alone; each attack meets its
refusal or its bound. `-s` prints the figures of every attack.

Each attack is a coroutine function of this module, run in a process of its own
(`neighbours.under_attack`), given the base URL and A's workspace.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from redline.testing.api import ApiClient, Workspace
from redline.testing.mail import HOST as MAIL_HOST
from redline.testing.mail import Mailbox, smtp_server
from tests.api.knowledge_support import TEXT, ingest, inline, settled
from tests.api.provider_support import provider_server, switched_on
from tests.api.workflow_support import Workflow, mock_agent
from tests.e2e.neighbours import (
    A_ADDRESS,
    AUTH_FAILURES_PER_MINUTE,
    B_ADDRESS,
    SteadyLoad,
    Tenant,
    client,
    system_process,
    tenant,
    under_attack,
)

pytestmark = [pytest.mark.noisy_neighbour, pytest.mark.timeout(300)]


@pytest.fixture
def relay() -> Iterator[tuple[Mailbox, int]]:
    """The operator's SMTP relay, as a deployment has one: what it received, and its port."""
    with smtp_server() as (mailbox, port):
        yield mailbox, port


@pytest.fixture
def settings(relay: tuple[Mailbox, int]) -> dict[str, str]:
    """Settings of the system beyond the suite's own."""
    return {
        "REDLINE_SMTP_URL": f"smtp://{MAIL_HOST}:{relay[1]}?security=none",
        "REDLINE_SMTP_FROM": "Redline <mail@redline.test>",
    }


@pytest.fixture
async def base_url(
    database_url: str, nats_url: str, tmp_path: Path, settings: dict[str, str]
) -> AsyncIterator[str]:
    async with system_process(database_url, nats_url, tmp_path, settings) as url:
        yield url


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
async def b(session: aiohttp.ClientSession, base_url: str) -> SteadyLoad:
    load = SteadyLoad(await tenant(session, base_url, "b@example.com"))
    await load.prepare()
    return load


@pytest.fixture
async def a(session: aiohttp.ClientSession, base_url: str) -> Tenant:
    return await tenant(session, base_url, "a@example.com")


def tally(statuses: list[int]) -> dict[int, int]:
    return dict(sorted(Counter(statuses).items()))


async def forge_signatures_and_tokens(base_url: str, ws: Workspace) -> str:
    statuses = []
    async with client(base_url) as api:
        for i in range(150):
            if i % 2:
                query = "expires=99999999999999&signature=%C3%A9"
                url = f"{base_url}/v2/memory/knowledge/uploads/up_{i}?{query}"
                call = api.session.put(url, data=b"x", headers={"content-type": "text/plain"})
            else:
                url = f"{base_url}/v2/workflow/callbacks/exec_{i}/step_{i}"
                token = "é".encode().decode("latin-1")
                headers = {"x-redline-callback-token": token}
                call = api.session.post(url, data=b"{}", headers=headers)
            async with call as answer:
                statuses.append(answer.status)
    # Each is refused; past the address's allowance of failed checks, it waits (429).
    refused, waiting = statuses[:AUTH_FAILURES_PER_MINUTE], statuses[AUTH_FAILURES_PER_MINUTE:]
    assert set(refused) <= {401, 403}, tally(statuses)
    assert set(waiting) == {429}, tally(statuses)
    return f"150 forged calls answered {tally(statuses)}"


async def test_forged_signatures_and_tokens_are_refused_and_b_goes_on(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    await under_attack(
        b, "forged signatures and tokens", forge_signatures_and_tokens, base_url, a.ws
    )


async def claim_b_s_address(base_url: str, ws: Workspace) -> str:
    forged = {
        **ws.key_headers,
        "x-redline-auth-token": "wrong",
        "X-Forwarded-For": f"{B_ADDRESS}, {A_ADDRESS}",
    }
    statuses = []
    async with client(base_url) as api:
        for _ in range(200):
            answer = await api.post("/v2/workspace/domains/get", headers=forged)
            statuses.append(answer.status)
    assert set(statuses) <= {401, 429}, tally(statuses)
    assert 429 in statuses, "A's own address was never slowed down"
    return f"200 bad credentials answered {tally(statuses)}"


async def test_bad_credentials_claiming_b_s_address_do_not_lock_b_out(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    """A presents wrong tokens with B's address first in X-Forwarded-For; the gateway (a
    trusted proxy) appends A's real address, which lies in the trusted network too, and only
    that one is A's to spend."""
    await under_attack(b, "bad credentials claiming B's address", claim_b_s_address, base_url, a.ws)


async def flood_from_fresh_ipv6_addresses(base_url: str, ws: Workspace) -> str:
    """Bad credentials from 500 addresses of one IPv6 /64 (what one host may use), then from one
    address in each of 500 /64s (a map of limits keyed per address grows with each)."""
    forged = {**ws.key_headers, "x-redline-auth-token": "wrong"}
    one_network, many_networks = [], []
    async with client(base_url) as api:
        for i in range(500):
            headers = {**forged, "X-Forwarded-For": f"2001:db8:a:1::{i + 1:x}"}
            answer = await api.post("/v2/workspace/domains/get", headers=headers)
            one_network.append(answer.status)
        for i in range(500):
            headers = {**forged, "X-Forwarded-For": f"2001:db8:b:{i + 1:x}::1"}
            answer = await api.post("/v2/workspace/domains/get", headers=headers)
            many_networks.append(answer.status)
    # One /64 is one address to the limits: its allowance of failed checks is spent once.
    assert one_network[:AUTH_FAILURES_PER_MINUTE] == [401] * AUTH_FAILURES_PER_MINUTE
    assert set(one_network[AUTH_FAILURES_PER_MINUTE:]) == {429}, tally(one_network)
    assert set(many_networks) == {401}, tally(many_networks)
    return (
        f"500 calls from one /64 {tally(one_network)}; 1 each from 500 /64s {tally(many_networks)}"
    )


async def test_a_flood_from_fresh_ipv6_addresses_is_one_address_per_network(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    await under_attack(b, "fresh IPv6 addresses", flood_from_fresh_ipv6_addresses, base_url, a.ws)


# What a workspace may send an hour by default (REDLINE_MAIL_RECIPIENTS_PER_HOUR).
MAIL_RECIPIENTS_PER_HOUR = 500


async def invite(api: ApiClient, ws: Workspace, email: str) -> int:
    data = {"email": email, "organizationId": "org", "type": "org_user"}
    return (await api.post("/v2/users/invite/add", data, headers=ws.key_headers)).status


async def invite_past_the_mail_quota(base_url: str, ws: Workspace) -> str:
    """A invites 550 addresses, one call each: each invitation is a mail through the relay."""
    async with client(base_url) as api:
        statuses = [await invite(api, ws, f"guest{i}@example.com") for i in range(550)]
    assert statuses[:MAIL_RECIPIENTS_PER_HOUR] == [200] * MAIL_RECIPIENTS_PER_HOUR, tally(statuses)
    assert set(statuses[MAIL_RECIPIENTS_PER_HOUR:]) == {429}, tally(statuses)
    return f"550 invitations answered {tally(statuses)}"


async def test_a_flood_of_invitations_stops_at_the_workspace_s_mail_quota(
    b: SteadyLoad, a: Tenant, base_url: str, relay: tuple[Mailbox, int]
) -> None:
    await under_attack(b, "a flood of invitations", invite_past_the_mail_quota, base_url, a.ws)
    # B's mail has a quota of its own: B invites, and the relay has it.
    assert await invite(b.b.api, b.b.ws, "colleague@example.com") == 200
    mail = await relay[0].wait_for(MAIL_RECIPIENTS_PER_HOUR + 1)
    assert sum(m.recipients == ["colleague@example.com"] for m in mail) == 1


async def upload_30_mib_to_forged_links(base_url: str, forged: str) -> str:
    part = bytes(1 << 20)

    async def one(api_session: aiohttp.ClientSession) -> str:
        sent = 0

        async def body() -> AsyncIterator[bytes]:
            nonlocal sent
            for _ in range(30):
                sent += len(part)
                yield part

        headers = {"content-type": "text/plain", "X-Forwarded-For": A_ADDRESS}
        try:
            async with api_session.put(forged, data=body(), headers=headers) as answer:
                return f"{answer.status} after {sent >> 20} MiB"
        except aiohttp.ClientError:  # refused and closed while the body was still going
            return f"closed after {sent >> 20} MiB"

    async with client(base_url) as api:
        answers = await asyncio.gather(*(one(api.session) for _ in range(16)))
    # An answer comes, or the connection closes, long before 30 MiB have gone out.
    assert all(not answer.endswith("30 MiB") for answer in answers), answers
    assert all(answer.startswith(("403", "429", "closed")) for answer in answers), answers
    return f"16 forged 30 MiB uploads: {dict(Counter(answers))}"


async def test_anonymous_uploads_of_30_mib_are_refused_before_they_are_read(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    """Strangers PUT the largest file an upload URL takes, 16 at once, to links they forged."""
    asked = await a.api.post(
        "/v2/memory/knowledge/upload-url",
        {"mimeType": "text/plain", "fileSize": 30 << 20, "fileName": "big.txt"},
        headers=a.headers,
    )
    assert asked.status == 200, asked.body
    forged = asked.result["uploadUrl"].rsplit("signature=", 1)[0] + "signature=" + "0" * 64
    await under_attack(
        b, "anonymous 30 MiB uploads", upload_30_mib_to_forged_links, base_url, forged
    )


# An annotation of 7 comments of 100,000 characters: about 0.7 MiB.
BIG_COMMENTS = [{"commentText": "x" * 100_000, "from": {"userId": "al"}} for _ in range(7)]
BIG_ANNOTATIONS = 12


async def read_pages_of_huge_annotations(base_url: str, ws: Workspace) -> str:
    page = {"organizationId": "a-org", "documentId": "a-doc", "pageSize": 1000}
    sizes = []
    async with client(base_url) as api:
        for _ in range(6):
            url = base_url + "/v2/commentannotations/get"
            async with api.session.post(url, json={"data": page}, headers=ws.key_headers) as got:
                assert got.status == 200
                sizes.append(len(await got.read()))
    # 12 rows of 0.7 MiB are 8.4 MiB: a page holds at most the 4 MiB budget and one more row.
    assert max(sizes) <= (4 << 20) + (800 << 10), sizes
    return f"6 first pages of {max(sizes) / (1 << 20):.1f} MiB at most"


async def test_huge_annotations_come_in_pages_of_a_few_mib(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    """A fills a document with annotations of ~0.7 MiB and reads it in pages of 1,000 rows."""
    for _ in range(BIG_ANNOTATIONS):
        added = await a.api.post(
            "/v2/commentannotations/add",
            {
                "organizationId": "a-org",
                "documentId": "a-doc",
                "createOrganization": True,
                "createDocument": True,
                "commentAnnotations": [{"commentData": BIG_COMMENTS}],
            },
            headers=a.headers,
        )
        assert added.status == 200, added.body
    await under_attack(
        b, "pages of huge annotations", read_pages_of_huge_annotations, base_url, a.ws
    )


async def create_api_keys_past_the_cap(base_url: str, ws: Workspace) -> str:
    statuses = []
    async with client(base_url) as api:
        for _ in range(120):
            made = await api.post("/v2/workspace/apikey/create", {}, headers=ws.workspace_headers)
            statuses.append(made.status)
    assert 400 in statuses, tally(statuses)  # FAILED_PRECONDITION past the cap
    assert statuses.count(200) <= 100, tally(statuses)
    return f"120 key creations answered {tally(statuses)}"


async def test_a_workspace_s_api_keys_stop_at_their_cap(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    await under_attack(b, "API keys past the cap", create_api_keys_past_the_cap, base_url, a.ws)


async def flood_through_a_hanging_provider(base_url: str, ws: Workspace, tokens: list[str]) -> str:
    """A's provider never answers; A's users read A's document, 70 within a second: more
    checks than identity answers at once (64), were each to wait out the provider's 1.5 s."""
    async with provider_server() as provider, client(base_url) as api:
        provider.answer = provider.hang
        await switched_on(api, ws, provider.url)

        async def read(token: str) -> int:
            headers = {**ws.key_headers, "x-redline-auth-token": token}
            got = await api.post(
                "/v2/commentannotations/get",
                {"organizationId": "org", "documentId": "open"},
                headers=headers,
            )
            return got.status

        reads = []
        for token in tokens:
            reads.append(asyncio.create_task(read(token)))
            await asyncio.sleep(1 / len(tokens))
        statuses = await asyncio.gather(*reads)
        asked = len(provider.requests)
    assert set(statuses) <= {200, 403}, tally(statuses)
    return (
        f"{len(tokens)} reads in a second through a hanging provider answered {tally(statuses)};"
        f" the provider was asked {asked} times"
    )


async def test_a_hanging_permission_provider_holds_up_only_its_own_checks(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    await with_documents_of(a)
    tokens = []
    for i in range(70):
        made = await a.api.post(
            "/v2/auth/generate_token", {"userId": f"a-user-{i}"}, headers=a.headers
        )
        tokens.append(made.data["token"])
    await under_attack(
        b,
        "a hanging permission provider",
        flood_through_a_hanging_provider,
        base_url,
        a.ws,
        tokens,
    )


async def with_documents_of(a: Tenant) -> None:
    added = await a.api.post(
        "/v2/organizations/documents/add",
        {
            "organizationId": "org",
            "createOrganization": True,
            "documents": [{"documentId": "open", "accessType": "public"}],
        },
        headers=a.headers,
    )
    assert added.status == 200, added.body


DISPATCHES = 50


def chain(definition_id: str, nodes: int, edges_per_pair: int) -> dict[str, Any]:
    """A chain of `__mock__` agents, each pair joined by `edges_per_pair` identical edges."""
    ids = [f"n{i}" for i in range(nodes)]
    edges = [
        {"from": source, "to": target, "on": "always"}
        for source, target in itertools.pairwise(ids)
        for _ in range(edges_per_pair)
    ]
    return {
        "definitionId": definition_id,
        "name": definition_id,
        "nodes": [mock_agent(node) for node in ids],
        "edges": edges,
    }


async def flood_the_workflow_queue(base_url: str, ws: Workspace) -> str:
    """A's triple-edged chain once, then runs of a 5-step chain at 10 a second for 5 s: the
    pace A's rate limit allows it for the whole minute (600 a minute)."""
    async with client(base_url) as api:
        tripled = await api.post(
            "/v2/workflow/executions/dispatch", {"definitionId": "tripled"}, headers=ws.key_headers
        )
        assert tripled.status == 200, tripled.body

        async def dispatch(n: int) -> int:
            answer = await api.post(
                "/v2/workflow/executions/dispatch",
                {"definitionId": "five", "idempotencyKey": f"a-{n}"},
                headers=ws.key_headers,
            )
            return answer.status

        dispatches = []
        started = time.monotonic()
        for n in range(DISPATCHES):
            await asyncio.sleep(max(0.0, started + n / 10 - time.monotonic()))
            dispatches.append(asyncio.create_task(dispatch(n)))
        statuses = await asyncio.gather(*dispatches)
        ended = await Workflow(api, ws).ended(tripled.result["executionId"], timeout_s=60)
        assert ended["status"] == "completed", ended
        steps = len(ended["steps"])
    # Three identical edges per pair make one step per node, not 3^0 + ... + 3^4 = 121.
    assert steps == 5, steps
    return (
        f"the triple-edged 5-node chain ran {steps} steps;"
        f" {DISPATCHES} dispatches of 5 steps {tally(statuses)}"
    )


async def test_a_flood_of_workflow_runs_does_not_hold_up_b_s(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    for created in (chain("tripled", 5, 3), chain("five", 5, 1)):
        made = await a.api.post("/v2/workflow/definitions/create", created, headers=a.headers)
        assert made.status == 200, made.body
    await under_attack(
        b, "a flood of workflow runs", flood_the_workflow_queue, base_url, a.ws, leaves_work=True
    )


async def queue_ingests(base_url: str, ws: Workspace, b_ws: Workspace) -> str:
    """A queues 25 files of 200 passages each; once they wait, B ingests one small file."""
    text = "\\n\\n".join(
        f"Passage {i} about the quarterly audit of vendor {i}." for i in range(200)
    )
    async with client(base_url) as api:
        statuses = []
        for n in range(25):
            answer = await api.post(
                "/v2/memory/knowledge/ingest",
                inline(text.encode(), TEXT, f"a-{n}.txt"),
                headers=ws.key_headers,
            )
            statuses.append(answer.status)
        started = time.monotonic()
        b_source = await ingest(api, b_ws, inline(b"Holidays are booked in March.", TEXT, "b.txt"))
        assert (await settled(api, b_ws, b_source))["status"] == "completed"
        b_took = time.monotonic() - started
        listed = await api.post("/v2/memory/knowledge/list", {}, headers=ws.key_headers)
        a_waiting = sum(1 for s in listed.result if s["embeddingStatus"] == "processing")
    assert statuses.count(200) == 20, tally(statuses)
    assert statuses.count(429) == 5, tally(statuses)
    assert a_waiting > 0, "A's backlog was done before B's file: the test shows nothing"
    return (
        f"25 ingests answered {tally(statuses)}; B's file done in {b_took:.1f} s"
        f" with {a_waiting} of A's still processing"
    )


async def test_a_backlog_of_ingests_does_not_hold_up_b_s_file(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    await under_attack(
        b, "a backlog of ingests", queue_ingests, base_url, a.ws, b.b.ws, leaves_work=True
    )


async def dispatch_template_bombs(base_url: str, ws: Workspace) -> str:
    """Three runs of a message of 1,200 copies of the execution, whose trigger context is
    600 KB: 720 MB each, were it built."""
    context = {"payload": "x" * 600_000}
    async with client(base_url) as api:
        ids = []
        for n in range(3):
            answer = await api.post(
                "/v2/workflow/executions/dispatch",
                {"definitionId": "bomb", "idempotencyKey": f"bomb-{n}", "triggerContext": context},
                headers=ws.key_headers,
            )
            assert answer.status == 200, answer.body
            ids.append(answer.result["executionId"])
        flow = Workflow(api, ws)
        codes = []
        for execution_id in ids:
            ended = await flow.ended(execution_id, timeout_s=60)
            codes.append(ended["steps"][0].get("error", {}).get("code"))
    assert codes == ["template-too-large"] * 3, codes
    return f"3 runs of a 720 MB message failed their step: {codes[0]}"


async def test_a_template_that_expands_past_all_measure_fails_its_step(
    b: SteadyLoad, a: Tenant, base_url: str
) -> None:
    bomb = {
        "nodeId": "notify",
        "type": "notification",
        "config": {
            "channel": "slack",
            "slackTarget": "C0123456",
            # 15,600 characters, within the 16,000 a body template may have.
            "bodyTemplate": "{{execution}}" * 1200,
        },
    }
    made = await a.api.post(
        "/v2/workflow/definitions/create",
        {"definitionId": "bomb", "name": "bomb", "nodes": [bomb], "edges": []},
        headers=a.headers,
    )
    assert made.status == 200, made.body
    await under_attack(b, "a template of 720 MB", dispatch_template_bombs, base_url, a.ws)


TRIGGER_SECRET = "trigger-secret-0123456789"


async def replay_a_signed_delivery(base_url: str, ws: Workspace) -> str:
    """One signed delivery, captured, sent 200 times."""
    body = json.dumps({"definitionId": "hooked", "triggerId": "ci", "payload": {"n": 1}}).encode()
    signed = hmac.new(TRIGGER_SECRET.encode(), body, "sha256").hexdigest()
    headers = {"x-redline-api-key": ws.api_key, "x-redline-signature": f"sha256={signed}"}
    statuses, executions = [], set()
    async with client(base_url) as api:
        for _ in range(200):
            answer = await api.post(
                "/v2/workflow/webhook-inbound/trigger", raw=body, headers=headers
            )
            statuses.append(answer.status)
            if answer.status == 200:
                executions.add(answer.body["executionId"])
    assert len(executions) == 1, executions
    assert set(statuses) <= {200, 429}, tally(statuses)
    return f"200 copies of one delivery answered {tally(statuses)}, {len(executions)} run"


async def test_a_replayed_delivery_starts_one_run(b: SteadyLoad, a: Tenant, base_url: str) -> None:
    hooked = {
        "definitionId": "hooked",
        "name": "hooked",
        "nodes": [mock_agent("check")],
        "edges": [],
        "triggers": [
            {"triggerId": "ci", "inboundWebhook": {"authMode": "hmac", "secret": TRIGGER_SECRET}}
        ],
    }
    made = await a.api.post("/v2/workflow/definitions/create", hooked, headers=a.headers)
    assert made.status == 200, made.body
    await under_attack(b, "a replayed signed delivery", replay_a_signed_delivery, base_url, a.ws)

"""Benchmark: comment event → basic webhook at an HTTPS receiver, beside the raw POST rate.

The all-in-one system (as `make run` starts it) and a receiver in its own process (HTTPS with a
throwaway CA the system is told to trust, allow-listed past the address guard). Then:

- latency: one annotation every 20 ms, each with `triggerNotification`; from the moment its
  add request is sent to the moment the receiver has the webhook. Target: p50 under 50 ms.
- rate: 5,000 `comment_annotation.add` events (over 200 documents, so 200 ordering keys) written
  into the comments outbox in one transaction, as the comments service writes them; deliveries
  per second from that commit to the last arrival (relay, stream, consumer, queue, worker,
  HTTPS). The comments API's own speed is measured by the comments benchmark. Baseline:
  the same webhook client (`redline.webhooks.WebhookClient`) POSTing the body and headers
  notify sends for such an event to the same receiver, with as many requests in flight as notify
  allows one receiver (8), from this process. Target: at least 50 % of the baseline.
- delivery engine alone: the deliveries of 5,000 such events (built by notify's own code) put
  into the delivery queue in one commit, timed from that commit to the last arrival (claim,
  send, record). Printed beside the end-to-end rate, to show where the time goes; the target
  is on the end-to-end rate.
- one document: the deliveries of 1,000 events of a single document queued in one commit, as
  a receiver back from an outage finds them; they go out in order, one in flight at a time.

Each round measures latency, rate and baseline in turn; figures are medians over the rounds.
Beside each rate, the CPU time each process spent per delivery (Linux): the system, PostgreSQL,
NATS, the receiver and this process (which POSTs the baseline).
"""

from __future__ import annotations

import asyncio
import os
import ssl
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import msgspec
import trustme

from redline.local.servers import LocalNats, LocalPostgres
from redline.notify.deliveries import storage
from redline.notify.settings import NotifySettings
from redline.notify.webhooks.enqueue import build_deliveries
from redline.pg import write_events
from redline.proto.annotation import Annotation
from redline.proto.events import AnnotationAdded, WebhookServiceConfigState
from redline.proto.events.base import new_event_id
from redline.webhooks import AddressGuard, WebhookClient
from tests.bench.cpu import CpuMeter, per_item_us
from tests.bench.load import REQUEST_TIMEOUT_S
from tests.bench.report import Row, exit_code, row
from tests.bench.servers import HERE, free_port, process, system
from tests.bench.webhook_receiver import reset_receiver, until_received
from tests.bench.workspace_get import create_workspace

LATENCY_SAMPLES = 200
PACE_S = 0.02
EVENTS = 5000
DOCUMENTS = 200
ROUNDS = 3
TARGET_P50_MS = 50.0
TARGET_RATIO = 0.50
# CPU the system spends on a delivery (the system's process, PostgreSQL and NATS) against what
# this process spends on one raw POST of the same body.
TARGET_CPU_RATIO = 2.0
SYSTEM_SIDE = ("system", "PostgreSQL", "NATS")
IN_FLIGHT = NotifySettings().webhook_endpoint_concurrency
AUTH_TOKEN = "bench-token"
# Deliveries queued for one document: they go out in order, one in flight at a time.
ONE_DOCUMENT_EVENTS = 1000
PHASES = ("end to end", "engine alone", "raw POSTs", "one document")
# Per phase, one entry per round: deliveries per second, and the CPU microseconds per delivery
# of each process tree.
Rates = dict[str, list[float]]
CpuFigures = dict[str, list[dict[str, float]]]


def _annotation(annotation_id: str) -> dict[str, Any]:
    return {
        "annotationId": annotation_id,
        "commentData": [
            {
                "commentText": "A comment from the webhook benchmark, about a sentence long.",
                "commentHtml": "<p>A comment from the webhook benchmark.</p>",
                "from": {"userId": "user-1", "name": "User 1", "email": "u1@example.com"},
                "triggerNotification": True,
            }
        ],
    }


class Run:
    def __init__(self, session: aiohttp.ClientSession, base: str, headers: dict[str, str]):
        self.session, self.base, self.headers = session, base, headers

    async def api(self, path: str, data: dict[str, Any]) -> Any:
        async with self.session.post(
            self.base + path, json={"data": data}, headers=self.headers
        ) as response:
            body = await response.json()
            assert response.status == 200, body
            return body

    async def add(self, document: str, annotations: list[dict[str, Any]]) -> None:
        await self.api(
            "/v2/commentannotations/add",
            {
                "organizationId": "bench-org",
                "documentId": document,
                "createOrganization": True,
                "createDocument": True,
                "commentAnnotations": annotations,
            },
        )


async def _latencies(run: Run, receiver: str, round_no: int) -> list[float]:
    await reset_receiver(run.session, receiver)
    sent: dict[str, float] = {}
    for i in range(LATENCY_SAMPLES):
        annotation_id = f"lat-{round_no}-{i}"
        sent[annotation_id] = time.time()
        await run.add(f"lat-doc-{i % 10}", [_annotation(annotation_id)])
        await asyncio.sleep(PACE_S)
    arrivals = await until_received(run.session, receiver, LATENCY_SAMPLES)
    return [(at - sent[ann]) * 1000 for at, ann in arrivals.values()]


def _events(
    template: AnnotationAdded, prefix: str, count: int, documents: int
) -> list[AnnotationAdded]:
    return [
        msgspec.structs.replace(
            template,
            id=new_event_id(),
            documentId=f"{prefix}-doc-{i % documents}",
            annotationId=f"{prefix}-{i}",
            annotation=msgspec.structs.replace(template.annotation, annotationId=f"{prefix}-{i}"),
        )
        for i in range(count)
    ]


async def _delivery_rate(
    run: Run, receiver: str, database_url: str, template: AnnotationAdded
) -> float:
    """Write EVENTS comment events into the comments outbox in one transaction, as the comments
    service would, and time them from the commit to the last arrival."""
    await reset_receiver(run.session, receiver)
    events = _events(template, "rate", EVENTS, DOCUMENTS)
    conn = await asyncpg.connect(database_url)
    try:
        async with conn.transaction():
            await write_events(conn, "comments", events)
        committed = time.time()
    finally:
        await conn.close()
    return await _rate_since(run, receiver, committed, EVENTS)


async def _engine_rate(
    run: Run,
    receiver: str,
    database_url: str,
    template: AnnotationAdded,
    count: int,
    documents: int,
) -> float:
    """Queue the deliveries of `count` comment events over `documents` documents in one
    commit, as notify's consumer would, and time them from the commit to the last arrival."""
    await reset_receiver(run.session, receiver)
    settings = WebhookServiceConfigState(rawNotificationUrl=receiver + "/raw")
    events = _events(template, f"engine{documents}", count, documents)
    deliveries = [d for event in events for d in build_deliveries(event, settings)]
    conn = await asyncpg.connect(database_url)
    try:
        await storage.enqueue(conn, deliveries)
        committed = time.time()
    finally:
        await conn.close()
    return await _rate_since(run, receiver, committed, count)


async def _rate_since(run: Run, receiver: str, committed: float, count: int) -> float:
    arrivals = await until_received(run.session, receiver, count)
    last: float = max(at for at, _ in arrivals.values())
    return count / (last - committed)


async def _template(run: Run, workspace_id: str) -> AnnotationAdded:
    """The event the comments service wrote for the warm-up annotation, as a pattern."""
    found = await run.api(
        "/v2/commentannotations/get", {"organizationId": "bench-org", "documentId": "warm-up"}
    )
    annotation = found["result"]["data"][0]
    return AnnotationAdded(
        workspaceId=workspace_id,
        apiKey=run.headers["x-redline-api-key"],
        organizationId="bench-org",
        documentId="warm-up",
        annotationId=annotation["annotationId"],
        annotation=msgspec.convert(annotation, Annotation),
        actionUser=annotation["from"],
        triggerNotification=True,
    )


async def _raw_rate(client: WebhookClient, receiver: str, body: bytes) -> float:
    remaining = iter(range(EVENTS))

    async def post() -> None:
        for i in remaining:
            headers = {
                "Content-Type": "application/json",
                "webhook-id": f"raw-{i}",
                "webhook-timestamp": str(int(time.time())),
                "Authorization": f"Basic {AUTH_TOKEN}",
            }
            outcome = await client.post(receiver + "/raw", body, headers)
            assert outcome.ok, outcome

    started = time.perf_counter()
    await asyncio.gather(*(post() for _ in range(IN_FLIGHT)))
    return EVENTS / (time.perf_counter() - started)


async def _measure(
    base: str, receiver: str, ca_file: Path, database_url: str, meter: CpuMeter | None
) -> tuple[list[float], Rates, CpuFigures]:
    # This process reads the receiver's figures over the same HTTPS.
    trusting = ssl.create_default_context(cafile=str(ca_file))
    async with (
        aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(ssl=trusting),
            timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S),
        ) as session,
        WebhookClient(AddressGuard(["127.0.0.1"]), ca_file=str(ca_file)) as client,
    ):
        workspace_id, headers = await asyncio.to_thread(create_workspace, base)
        run = Run(session, base, headers)
        await run.api(
            "/v2/workspace/webhookconfig/update",
            {
                "useWebhookService": True,
                "webhookServiceConfig": {
                    "rawNotificationUrl": receiver + "/raw",
                    "authToken": AUTH_TOKEN,
                },
            },
        )
        await run.add("warm-up", [_annotation("warm-up")])
        await until_received(session, receiver, 1)
        template = await _template(run, workspace_id)
        # The body notify sends for such an event: the receiver does the same work for both.
        settings = WebhookServiceConfigState(rawNotificationUrl=receiver + "/raw")
        raw_body = build_deliveries(template, settings)[0].body
        latencies: list[float] = []
        rates: Rates = {phase: [] for phase in PHASES}
        cpu: CpuFigures = {phase: [] for phase in PHASES}

        async def phase(name: str, count: int, measure: Awaitable[float]) -> None:
            before = meter.sample() if meter is not None else {}
            rates[name].append(await measure)
            if meter is not None:
                cpu[name].append(per_item_us(before, meter.sample(), count))

        for round_no in range(ROUNDS):
            latencies += await _latencies(run, receiver, round_no)
            await phase("end to end", EVENTS, _delivery_rate(run, receiver, database_url, template))
            await phase(
                "engine alone",
                EVENTS,
                _engine_rate(run, receiver, database_url, template, EVENTS, DOCUMENTS),
            )
            await reset_receiver(session, receiver)
            await phase("raw POSTs", EVENTS, _raw_rate(client, receiver, raw_body))
            await phase(
                "one document",
                ONE_DOCUMENT_EVENTS,
                _engine_rate(run, receiver, database_url, template, ONE_DOCUMENT_EVENTS, 1),
            )
        return latencies, rates, cpu


def main() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="redline-bench-webhooks-") as tmp:
        tmp_dir = Path(tmp)
        ca = trustme.CA()
        ca_file, cert_file, key_file = tmp_dir / "ca.pem", tmp_dir / "cert.pem", tmp_dir / "key.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        issued = ca.issue_cert("127.0.0.1")
        issued.cert_chain_pems[0].write_to_path(str(cert_file))
        issued.private_key_pem.write_to_path(str(key_file))
        receiver_port, port = free_port(), free_port()
        receiver = f"https://127.0.0.1:{receiver_port}"
        env = {"REDLINE_WEBHOOK_ALLOW": "127.0.0.1", "REDLINE_WEBHOOK_CA_FILE": str(ca_file)}
        receiver_args = [
            sys.executable,
            str(HERE / "webhook_receiver.py"),
            str(receiver_port),
            str(cert_file),
            str(key_file),
        ]
        postgres = LocalPostgres(tmp_dir / "pg")
        nats = LocalNats(tmp_dir / "nats")
        env["REDLINE_DATABASE_URL"] = postgres.url
        env["REDLINE_NATS_URL"] = nats.url
        try:
            nats.start()
            with (
                process(receiver_args, receiver_port, cpus=_receiver_core()) as receiver_process,
                system(port, tmp_dir / "data", env) as system_process,
            ):
                meter = None
                if CpuMeter.available() and nats.pid is not None and postgres.pid is not None:
                    meter = CpuMeter(
                        {
                            "system": system_process.pid,
                            "PostgreSQL": postgres.pid,
                            "NATS": nats.pid,
                            "receiver": receiver_process.pid,
                            "benchmark": os.getpid(),
                        }
                    )
                latencies, rates, cpu = asyncio.run(
                    _measure(f"http://127.0.0.1:{port}", receiver, ca_file, postgres.url, meter)
                )
        finally:
            nats.stop()
            postgres.stop()
    return _report(latencies, rates, cpu)


def _receiver_core() -> set[int] | None:
    """The receiver's own core (the last one), so that the figures measure the system rather
    than a receiver competing with it; None on one core."""
    cores = sorted(os.sched_getaffinity(0))
    return {cores[-1]} if len(cores) > 1 else None


def _cpu_rows(cpu: CpuFigures) -> list[Row]:
    """CPU per delivery on the system's side beside the raw POST's, when it could be metered."""
    if not (cpu["end to end"] and cpu["raw POSTs"]):
        return []
    system_us = sum(
        statistics.median(r.get(name, 0.0) for r in cpu["end to end"]) for name in SYSTEM_SIDE
    )
    raw_us = statistics.median(r["benchmark"] for r in cpu["raw POSTs"])
    ratio = system_us / raw_us if raw_us else float("inf")
    met = ratio <= TARGET_CPU_RATIO
    print(
        f"  CPU per delivery {system_us:,.0f} µs (system, PostgreSQL, NATS) against"
        f" {raw_us:,.0f} µs per raw POST: {ratio:.2f}x ("
        f"{'meets' if met else 'MISSES'} the ≤ {TARGET_CPU_RATIO:g}x target)"
    )
    return [
        row(
            "CPU per delivery, end to end",
            system_us,
            "µs",
            baseline=raw_us,
            target=f"≤ {TARGET_CPU_RATIO:g}x baseline",
            met=met,
        )
    ]


def _report(latencies: list[float], rates: Rates, cpu: CpuFigures) -> list[Row]:
    ordered = sorted(latencies)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    rate, raw = statistics.median(rates["end to end"]), statistics.median(rates["raw POSTs"])
    engine = statistics.median(rates["engine alone"])
    one_document = statistics.median(rates["one document"])
    print(
        f"webhooks: comment event to HTTPS receiver; {ROUNDS} rounds, "
        f"{LATENCY_SAMPLES} paced events and {EVENTS:,} in one commit per round"
    )
    latency_ok = p50 < TARGET_P50_MS
    verdict = "meets" if latency_ok else "MISSES"
    print(
        f"  event to receipt: p50 {p50:6.1f} ms   p99 {p99:6.1f} ms "
        f"({verdict} the p50 < {TARGET_P50_MS:g} ms target)"
    )
    each = ", ".join(f"{r:,.0f}" for r in rates["end to end"])
    print(f"  deliveries      {rate:>8,.0f} /s   (end to end; rounds: {each})")
    each = ", ".join(f"{r:,.0f}" for r in rates["engine alone"])
    print(f"  engine alone    {engine:>8,.0f} /s   (queued deliveries; rounds: {each})")
    print(f"  raw POSTs       {raw:>8,.0f} /s   (same client, {IN_FLIGHT} in flight)")
    each = ", ".join(f"{r:,.0f}" for r in rates["one document"])
    print(
        f"  one document    {one_document:>8,.0f} /s   ({ONE_DOCUMENT_EVENTS:,} queued for one"
        f" document, in order; rounds: {each})"
    )
    ratio = rate / raw
    rate_ok = ratio >= TARGET_RATIO
    verdict = "meets" if rate_ok else "MISSES"
    print(
        f"  deliveries {ratio:.0%} of the raw POST rate ({verdict} the {TARGET_RATIO:.0%} target);"
        f" engine alone {engine / raw:.0%}"
    )
    _report_cpu(cpu)
    cpu_rows = _cpu_rows(cpu)
    return [
        *cpu_rows,
        row(
            "event to receipt p50",
            p50,
            "ms",
            target=f"< {TARGET_P50_MS:g} ms",
            met=latency_ok,
        ),
        row("event to receipt p99", p99, "ms"),
        row(
            "deliveries, end to end",
            rate,
            "/s",
            baseline=raw,
            target=f"≥ {TARGET_RATIO:.2f}x baseline",
            met=rate_ok,
        ),
        row("deliveries, engine alone", engine, "/s", baseline=raw),
        row("deliveries, one document in order", one_document, "/s"),
    ]


def _report_cpu(cpu: CpuFigures) -> None:
    """Median CPU microseconds per delivery of each process, per phase."""
    if not all(cpu.values()):
        return
    print("  CPU per delivery, median of the rounds (this process POSTs the baseline):")
    for phase in PHASES:
        names = cpu[phase][0].keys()
        medians = {name: statistics.median(r[name] for r in cpu[phase]) for name in names}
        shown = [(name, us) for name, us in medians.items() if us >= 1]
        parts = ", ".join(f"{name} {us:,.0f}" for name, us in shown)
        print(f"    {phase:<13} {sum(medians.values()):>5,.0f} µs = {parts}")


if __name__ == "__main__":
    sys.exit(exit_code(main()))

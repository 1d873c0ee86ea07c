"""Benchmark: workflow executions through the all-in-one system, beside the raw insert rate of
the same event rows.

The system as `make run` starts it, on PostgreSQL and NATS started for the purpose, with an
HTTPS receiver for webhook nodes (its own process) and an SMTP sink for email notifications
(its own process). Printed:

- dispatch latency: `executions/dispatch` of a definition whose one step waits for a reviewer
  (so nothing runs after), p50 and p99, on one connection and on sixteen. Target: p50 ≤ 10 ms.
- chain latency: dispatch → `execution.completed` for a three-node automatic chain
  (email notification → sync webhook to the receiver → email notification), one execution at a
  time, seen by polling `executions/get`.
- sustained: such executions dispatched for 60 s with the backlog held near a bound; completed
  executions per second over the window. Target: at least 200 per second.
- baseline: the same event rows (as many per execution as the chain writes, in as many
  transactions) inserted by asyncpg into a table of the same shape, per second.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import trustme

from redline.local.servers import LocalNats, LocalPostgres
from tests.bench.cpu import CpuMeter, per_item_us
from tests.bench.load import LoadResult, run_load
from tests.bench.report import Row, exit_code, row
from tests.bench.servers import HERE, free_port, process, system
from tests.bench.workspace_get import create_workspace, post, report

TARGET_DISPATCH_P50_MS = 10.0
TARGET_COMPLETED_PER_S = 200.0
SUSTAIN_S = 60.0
WARMUP_S = 5.0
CHAIN_SAMPLES = 40
BACKLOG = 400
DISPATCHERS = 8


def _definitions(receiver: str) -> list[dict[str, Any]]:
    email = {"channel": "email", "recipients": ["team@example.com"]}
    return [
        {
            "definitionId": "hold",
            "name": "hold",
            "nodes": [
                {
                    "nodeId": "review",
                    "type": "human",
                    "config": {"reviewers": [{"userId": "alice", "mandatory": True}]},
                },
                {
                    "nodeId": "rework",
                    "type": "agent",
                    "config": {"agentId": "__mock__", "url": "https://x.example"},
                },
            ],
            "edges": [{"from": "review", "to": "rework", "on": "reject"}],
        },
        {
            "definitionId": "chain",
            "name": "chain",
            "nodes": [
                {
                    "nodeId": "announce",
                    "type": "notification",
                    "config": {
                        **email,
                        "subjectTemplate": "Run {{execution.executionId}}",
                        "bodyTemplate": "Started.",
                    },
                },
                {
                    "nodeId": "call",
                    "type": "webhook",
                    "config": {"url": receiver + "/step", "authMode": "none"},
                },
                {
                    "nodeId": "report",
                    "type": "notification",
                    "config": {**email, "bodyTemplate": "Answered {{input.httpStatus}}."},
                },
            ],
            "edges": [{"from": "announce", "to": "call"}, {"from": "call", "to": "report"}],
        },
    ]


async def _chain_latencies(base: str, headers: dict[str, str]) -> list[float]:
    latencies = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        for _ in range(CHAIN_SAMPLES):
            started = time.perf_counter()
            async with session.post(
                base + "/v2/workflow/executions/dispatch",
                json={"data": {"definitionId": "chain"}},
                headers=headers,
            ) as response:
                execution_id = (await response.json())["result"]["executionId"]
            while True:
                async with session.post(
                    base + "/v2/workflow/executions/get",
                    json={"data": {"executionId": execution_id}},
                    headers=headers,
                ) as response:
                    status = (await response.json())["result"]["status"]
                if status != "running":
                    assert status == "completed", status
                    break
                await asyncio.sleep(0.002)
            latencies.append((time.perf_counter() - started) * 1000)
    return latencies


async def _sustained(
    base: str, headers: dict[str, str], database_url: str, meter: CpuMeter | None
) -> tuple[float, float, dict[str, float]]:
    """Completed executions per second over the window, events written per execution, and the
    CPU milliseconds each process spent per execution completed in the window."""
    conn = await asyncpg.connect(database_url)
    backlog = 0
    stop = time.perf_counter() + WARMUP_S + SUSTAIN_S + 1

    async def watch() -> None:
        nonlocal backlog
        while time.perf_counter() < stop:
            backlog = await conn.fetchval(
                "SELECT count(*) FROM workflow.execution WHERE status = 'running'"
                " AND definition_id = 'chain'"
            )
            await asyncio.sleep(0.2)

    async def dispatch(session: aiohttp.ClientSession) -> None:
        body = json.dumps({"data": {"definitionId": "chain"}})
        while time.perf_counter() < stop:
            if backlog > BACKLOG:
                await asyncio.sleep(0.02)
                continue
            async with session.post(
                base + "/v2/workflow/executions/dispatch", data=body, headers=headers
            ) as response:
                await response.read()

    async def completed() -> int:
        return int(
            await conn.fetchval(
                "SELECT count(*) FROM workflow.execution WHERE status = 'completed'"
                " AND definition_id = 'chain'"
            )
        )

    async with aiohttp.ClientSession(
        timeout=aiohttp.ClientTimeout(total=30),
        headers={"content-type": "application/json"},
    ) as session:
        tasks = [asyncio.create_task(watch())]
        tasks += [asyncio.create_task(dispatch(session)) for _ in range(DISPATCHERS)]
        await asyncio.sleep(WARMUP_S)
        cpu_before = meter.sample() if meter else {}
        before, started = await completed(), time.perf_counter()
        await asyncio.sleep(SUSTAIN_S)
        after, elapsed = await completed(), time.perf_counter() - started
        cpu = per_item_us(cpu_before, meter.sample(), max(1, after - before)) if meter else {}
        await asyncio.gather(*tasks)
    per_execution = await conn.fetchval(
        "SELECT avg(last_seq) FROM workflow.execution WHERE status = 'completed'"
        " AND definition_id = 'chain'"
    )
    await conn.close()
    return (after - before) / elapsed, float(per_execution), {k: v / 1000 for k, v in cpu.items()}


async def _raw_insert_rate(database_url: str, events_per_execution: int, executions: int) -> float:
    """Executions' worth of event rows per second, written as the engine writes them: a few rows
    per transaction (one transaction per change), by one connection per concurrent writer."""
    conn = await asyncpg.connect(database_url)
    await conn.execute("CREATE TABLE IF NOT EXISTS bench_event (LIKE workflow.event INCLUDING ALL)")
    await conn.close()
    per_transaction = max(1, events_per_execution // 6)
    data = json.dumps({"nodeType": "webhook", "decision": "approve"})

    async def writer(count: int) -> None:
        link = await asyncpg.connect(database_url)
        for _ in range(count):
            execution_id = f"exec_{uuid.uuid4().hex}"
            seq = 0
            while seq < events_per_execution:
                rows = range(seq + 1, min(events_per_execution, seq + per_transaction) + 1)
                async with link.transaction():
                    await link.execute(
                        "INSERT INTO bench_event (execution_id, seq, event_id, type, visible,"
                        " step_id, timestamp, data)"
                        " SELECT $1, s, md5(s::text || $1), 'step.completed', true, 'step', 1,"
                        " $2::jsonb FROM unnest($3::int[]) AS s",
                        execution_id,
                        data,
                        list(rows),
                    )
                seq = rows[-1]
        await link.close()

    writers = 8
    started = time.perf_counter()
    await asyncio.gather(*(writer(executions // writers) for _ in range(writers)))
    return executions / (time.perf_counter() - started)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="redline-bench-workflow-") as tmp:
        tmp_dir = Path(tmp)
        ca = trustme.CA()
        ca_file, cert_file, key_file = tmp_dir / "ca.pem", tmp_dir / "cert.pem", tmp_dir / "key.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        issued = ca.issue_cert("127.0.0.1")
        issued.cert_chain_pems[0].write_to_path(str(cert_file))
        issued.private_key_pem.write_to_path(str(key_file))
        receiver_port, smtp_port, port = free_port(), free_port(), free_port()
        receiver = f"https://127.0.0.1:{receiver_port}"
        receiver_args = [
            sys.executable,
            str(HERE / "webhook_receiver.py"),
            str(receiver_port),
            str(cert_file),
            str(key_file),
        ]
        smtp_args = [
            sys.executable,
            "-m",
            "aiosmtpd",
            "-n",
            "-l",
            f"127.0.0.1:{smtp_port}",
            "-c",
            "aiosmtpd.handlers.Sink",
        ]
        postgres = LocalPostgres(tmp_dir / "pg")
        nats = LocalNats(tmp_dir / "nats")
        env = {
            "REDLINE_DATABASE_URL": postgres.url,
            "REDLINE_NATS_URL": nats.url,
            "REDLINE_WEBHOOK_ALLOW": "127.0.0.1",
            "REDLINE_WEBHOOK_CA_FILE": str(ca_file),
            "REDLINE_SMTP_HOST": "127.0.0.1",
            "REDLINE_SMTP_PORT": str(smtp_port),
            "REDLINE_SMTP_SECURITY": "none",
            # Each execution mails two recipients: the benchmark's minute is far past a
            # workspace's default hourly mail quota, which would fail its email steps.
            "REDLINE_MAIL_RECIPIENTS_PER_HOUR": "10000000",
            "REDLINE_MAIL_RECIPIENTS_PER_DAY": "10000000",
        }
        try:
            nats.start()
            with (
                process(receiver_args, receiver_port) as receiver_process,
                process(smtp_args, smtp_port) as smtp_process,
                system(port, tmp_dir / "data", env) as system_process,
            ):
                meter = None
                if CpuMeter.available() and nats.pid is not None:
                    meter = CpuMeter(
                        {
                            # PostgreSQL is left out: backends it forks for a phase's
                            # connections come and go, and their time is lost to the meter.
                            "system": system_process.pid,
                            "NATS": nats.pid,
                            "receiver": receiver_process.pid,
                            "SMTP": smtp_process.pid,
                            "benchmark": os.getpid(),
                        }
                    )
                return _measure(f"http://127.0.0.1:{port}", receiver, postgres.url, meter)
        finally:
            nats.stop()
            postgres.stop()


def _measure(base: str, receiver: str, database_url: str, meter: CpuMeter | None) -> list[Row]:
    _, headers = create_workspace(base)
    for definition in _definitions(receiver):
        post(base + "/v2/workflow/definitions/create", definition, headers)
    body = json.dumps({"data": {"definitionId": "hold"}}).encode()
    host, port = "127.0.0.1", int(base.rsplit(":", 1)[1])
    path = "/v2/workflow/executions/dispatch"
    one: LoadResult = asyncio.run(
        run_load(host, port, path, body, headers, connections=1, seconds=5)
    )
    many: LoadResult = asyncio.run(
        run_load(host, port, path, body, headers, connections=16, seconds=5)
    )
    report("workflow dispatch, 1 connection", one)
    report("workflow dispatch, 16 connections", many)
    chain = asyncio.run(_chain_latencies(base, headers))
    completed_per_s, events, cpu = asyncio.run(_sustained(base, headers, database_url, meter))
    cpu_line = ", ".join(f"{name} {ms:.1f}" for name, ms in cpu.items())
    raw = asyncio.run(_raw_insert_rate(database_url, round(events), 4000))
    dispatch_p50 = one.percentile(0.5)
    print(
        f"workflow: dispatch p50 {dispatch_p50:.1f} ms, p99 {one.percentile(0.99):.1f} ms"
        f" (1 connection; target p50 ≤ {TARGET_DISPATCH_P50_MS:g} ms);"
        f" 16 connections {many.rps:.0f}/s, p50 {many.percentile(0.5):.1f} ms,"
        f" p99 {many.percentile(0.99):.1f} ms"
    )
    print(
        f"workflow: dispatch → execution.completed, 3-node chain (email → webhook → email):"
        f" p50 {statistics.median(chain):.0f} ms, p99 {_percentile(chain, 0.99):.0f} ms"
    )
    print(
        f"workflow: {completed_per_s:.0f} completed executions/s sustained over {SUSTAIN_S:g} s"
        f" (target ≥ {TARGET_COMPLETED_PER_S:g}); {events:.1f} events each;"
        f" raw asyncpg insert of the same rows: {raw:.0f} executions' worth/s"
        f" ({completed_per_s / raw:.0%} of raw)"
    )
    if cpu_line:
        print(f"workflow: CPU ms per execution completed in the window: {cpu_line}")
    met = dispatch_p50 <= TARGET_DISPATCH_P50_MS and completed_per_s >= TARGET_COMPLETED_PER_S
    print(f"workflow: targets {'met' if met else 'NOT met on this machine'}")
    # The sustained target is out of this two-core machine's reach (see docs/benchmarks.md): it is
    # shown, and a miss does not fail the run. The dispatch target never gated either.
    return [
        row(
            "dispatch p50, 1 connection",
            dispatch_p50,
            "ms",
            target=f"≤ {TARGET_DISPATCH_P50_MS:g} ms",
            met=dispatch_p50 <= TARGET_DISPATCH_P50_MS,
            gating=False,
        ),
        row("dispatch p99, 1 connection", one.percentile(0.99), "ms"),
        row("dispatch, 16 connections", many.rps, "req/s"),
        row("dispatch p50, 16 connections", many.percentile(0.5), "ms"),
        row("3-node chain, dispatch to completed p50", statistics.median(chain), "ms"),
        row("3-node chain, dispatch to completed p99", _percentile(chain, 0.99), "ms"),
        row(
            "completed executions, sustained",
            completed_per_s,
            "/s",
            baseline=raw,
            target=f"≥ {TARGET_COMPLETED_PER_S:g}/s",
            met=completed_per_s >= TARGET_COMPLETED_PER_S,
            gating=False,
        ),
    ]


if __name__ == "__main__":
    sys.exit(exit_code(main()))

"""Benchmark: effective-access checks for a user who holds 1,000 grants.

The all-in-one system runs as `make run` starts it, on a NATS server this benchmark starts (so it
can connect too). The user gets 1,000 grants through `/v2/auth/permissions/add`: membership of
the organization, 9 folders and 990 documents. Then, one check at a time:

- cached: `AccessClient.check` answered from its in-process cache (what a service pays on every
  request after the first within a few seconds);
- uncached: the same client with its cache off, so each check is a `rpc.identity.access.check`
  round trip over NATS to identity, which gathers the facts in one PostgreSQL query.

Targets: p50 under 1 ms cached and under 5 ms uncached.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from redline.bus import Bus
from redline.local.servers import LocalNats
from redline.runtime.access import AccessClient
from tests.bench.report import Row, exit_code, row
from tests.bench.servers import free_port, system
from tests.bench.workspace_get import post

USER = "bench-user"
ORG = "bench-org"
GRANTS = 1000
FOLDERS = 9
TARGET_CACHED_MS = 1.0
TARGET_UNCACHED_MS = 5.0


def _grant_everything(base: str, headers: dict[str, str]) -> None:
    resources: list[dict[str, object]] = [{"type": "organization", "id": ORG}]
    resources += [
        {"type": "folder", "id": f"folder-{i}", "organizationId": ORG, "accessRole": "viewer"}
        for i in range(FOLDERS)
    ]
    resources += [
        {"type": "document", "id": f"doc-{i}", "organizationId": ORG, "accessRole": "editor"}
        for i in range(GRANTS - len(resources))
    ]
    assert len(resources) == GRANTS
    for start in range(0, GRANTS, 100):
        post(
            base + "/v2/auth/permissions/add",
            {
                "user": {"userId": USER},
                "permissions": {"resources": resources[start : start + 100]},
            },
            headers,
        )


def _percentile(samples_ms: list[float], q: float) -> float:
    ordered = sorted(samples_ms)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _time(call: Callable[[], Awaitable[object]], count: int) -> list[float]:
    samples: list[float] = []
    for _ in range(count):
        started = time.perf_counter_ns()
        await call()
        samples.append((time.perf_counter_ns() - started) / 1e6)
    return samples


async def _measure(nats_url: str, api_key: str) -> tuple[list[float], list[float], str]:
    bus = await Bus.connect(nats_url, name="bench-access")
    try:
        cached = AccessClient(bus)
        uncached = AccessClient(bus, ttl_s=0)
        decision = await uncached.check(api_key, ORG, "doc-500", USER)
        assert decision.role == "editor", decision

        async def from_cache() -> object:
            return await cached.check(api_key, ORG, "doc-500", USER)

        async def over_rpc() -> object:
            return await uncached.check(api_key, ORG, "doc-500", USER)

        await _time(from_cache, 100)  # warm-up: the first check fills the cache
        await _time(over_rpc, 200)
        return (
            await _time(from_cache, 20_000),
            await _time(over_rpc, 2_000),
            f"{decision.role} via {decision.via}",
        )
    finally:
        await bus.close()


def _report(name: str, samples_ms: list[float], target_ms: float) -> list[Row]:
    p50, p99 = statistics.median(samples_ms), _percentile(samples_ms, 0.99)
    verdict = "meets" if p50 < target_ms else "MISSES"
    print(
        f"  {name:<34} p50 {p50:7.3f} ms   p99 {p99:7.3f} ms"
        f"   ({len(samples_ms):,} checks; {verdict} the p50 < {target_ms:g} ms target)"
    )
    return [
        row(f"{name} p50", p50, "ms", target=f"< {target_ms:g} ms", met=p50 < target_ms),
        row(f"{name} p99", p99, "ms"),
    ]


def main() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="redline-bench-access-") as tmp:
        data_dir = Path(tmp)
        nats = LocalNats(data_dir / "nats")
        nats.start()
        try:
            port = free_port()
            with system(port, data_dir / "data", {"REDLINE_NATS_URL": nats.url}):
                base = f"http://127.0.0.1:{port}"
                created = json.loads(
                    post(base + "/v2/workspace/create", {"ownerEmail": "a@example.com"})
                )
                ws = created["result"]["data"]
                api_key = next(iter(ws["apiKeyList"]))
                tokens = json.loads(
                    post(
                        base + "/v2/workspace/authtokens/get",
                        {"apiKey": api_key},
                        {
                            "x-redline-workspace-id": ws["id"],
                            "x-redline-workspace-auth-token": ws["authToken"],
                        },
                    )
                )
                headers = {
                    "x-redline-api-key": api_key,
                    "x-redline-auth-token": tokens["result"]["data"]["authTokens"][0]["token"],
                }
                _grant_everything(base, headers)
                cached, uncached, decided = asyncio.run(_measure(nats.url, api_key))
        finally:
            nats.stop()
    print(
        f"access checks: one user with {GRANTS:,} grants, a document granted directly ({decided})"
    )
    return [
        *_report("AccessClient, cached", cached, TARGET_CACHED_MS),
        *_report("AccessClient, uncached (NATS RPC)", uncached, TARGET_UNCACHED_MS),
    ]


if __name__ == "__main__":
    sys.exit(exit_code(main()))

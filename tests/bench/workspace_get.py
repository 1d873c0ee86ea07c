"""Benchmark: `/v2/workspace/get` through the full stack vs a bare aiohttp handler.

The full stack is the all-in-one system: envelope middleware, workspace credentials (checked
against PostgreSQL, then cached), the rate limiter, the identity service and the response
envelope. It runs twice: as shipped (the workspace document cached in memory, dropped by identity
events), with that cache off (one PostgreSQL query per request), and as shipped on asyncio's own
event loop instead of uvloop (`REDLINE_EVENT_LOOP=asyncio`), which shows what uvloop is worth.
The baseline answers the same bytes from a constant. Target: the shipped full stack reaches 60 %
of the baseline's requests/s.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import urllib.request
from pathlib import Path

from tests.bench.load import REQUEST_TIMEOUT_S, LoadResult, run_load
from tests.bench.report import Row, exit_code, row
from tests.bench.servers import bare, free_port, system

PATH = "/v2/workspace/get"
BODY = b'{"data":{}}'
TARGET_RATIO = 0.60


def post(url: str, data: dict[str, object], headers: dict[str, str] | None = None) -> bytes:
    request = urllib.request.Request(  # noqa: S310 (a loopback URL built here)
        url,
        data=json.dumps({"data": data}).encode(),
        headers={"content-type": "application/json", **(headers or {})},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:  # noqa: S310
        body: bytes = response.read()
        return body


def create_workspace(base: str) -> tuple[str, dict[str, str]]:
    """A new workspace: its id and the API key headers of its default key."""
    created = json.loads(post(base + "/v2/workspace/create", {"ownerEmail": "c@example.com"}))
    ws = created["result"]["data"]
    api_key = next(iter(ws["apiKeyList"]))
    tokens = json.loads(
        post(
            base + "/v2/workspace/authtokens/get",
            {"apiKey": api_key},
            {"x-redline-workspace-id": ws["id"], "x-redline-workspace-auth-token": ws["authToken"]},
        )
    )
    return ws["id"], {
        "x-redline-api-key": api_key,
        "x-redline-auth-token": tokens["result"]["data"]["authTokens"][0]["token"],
    }


def report(name: str, result: LoadResult) -> None:
    print(
        f"  {name:<34} {result.rps:>8,.0f} req/s   p50 {result.p50:6.2f} ms   "
        f"p99 {result.percentile(0.99):6.2f} ms   errors {result.errors}"
    )


def _workspace_headers(port: int) -> dict[str, str]:
    base = f"http://127.0.0.1:{port}"
    created = json.loads(post(base + "/v2/workspace/create", {"ownerEmail": "b@example.com"}))
    ws = created["result"]["data"]
    return {"x-redline-workspace-id": ws["id"], "x-redline-workspace-auth-token": ws["authToken"]}


def _median(results: list[LoadResult]) -> LoadResult:
    return sorted(results, key=lambda r: r.rps)[len(results) // 2]


def main(connections: int = 32, seconds: float = 4.0, rounds: int = 3) -> list[Row]:
    """All three servers run side by side and are measured in turns, round after round, so a
    machine that speeds up or slows down during the run affects each of them alike; the median
    round of each is reported."""
    with tempfile.TemporaryDirectory(prefix="redline-bench-") as tmp:
        tmp_dir = Path(tmp)
        full_port, uncached_port, bare_port = free_port(), free_port(), free_port()
        asyncio_port = free_port()
        uncached_env = {"REDLINE_WORKSPACE_CACHE_TTL_S": "0"}
        with (
            system(full_port, tmp_dir / "full"),
            system(uncached_port, tmp_dir / "uncached", uncached_env),
            system(asyncio_port, tmp_dir / "asyncio", {"REDLINE_EVENT_LOOP": "asyncio"}),
        ):
            headers = _workspace_headers(full_port)
            uncached_headers = _workspace_headers(uncached_port)
            asyncio_headers = _workspace_headers(asyncio_port)
            body_file = tmp_dir / "body.json"
            body_file.write_bytes(post(f"http://127.0.0.1:{full_port}{PATH}", {}, headers))
            with bare(bare_port, body_file):
                runs: dict[str, list[LoadResult]] = {
                    "full": [],
                    "uncached": [],
                    "asyncio": [],
                    "bare": [],
                }
                targets = [
                    ("full", full_port, headers),
                    ("uncached", uncached_port, uncached_headers),
                    ("asyncio", asyncio_port, asyncio_headers),
                    ("bare", bare_port, headers),
                ]
                for _ in range(rounds):
                    for name, port, with_headers in targets:
                        runs[name].append(
                            asyncio.run(
                                run_load(
                                    "127.0.0.1",
                                    port,
                                    PATH,
                                    BODY,
                                    with_headers,
                                    connections=connections,
                                    seconds=seconds,
                                )
                            )
                        )
    full, uncached, on_asyncio, baseline = (
        _median(runs[n]) for n in ("full", "uncached", "asyncio", "bare")
    )
    ratio = full.rps / baseline.rps
    print(
        f"/v2/workspace/get: {connections} connections, {rounds} rounds of {seconds:.0f} s each, "
        "median round"
    )
    report("full stack", full)
    report("full stack, document cache off", uncached)
    report("full stack, asyncio's event loop", on_asyncio)
    report("bare aiohttp handler", baseline)
    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
    print(
        f"  ratio {ratio:.0%} of bare ({verdict} the {TARGET_RATIO:.0%} target); "
        f"cache off: {uncached.rps / baseline.rps:.0%}; uvloop over asyncio's loop: "
        f"{full.rps / on_asyncio.rps:.2f}x"
    )
    return [
        row(
            f"full stack, {connections} connections",
            full.rps,
            "req/s",
            baseline=baseline.rps,
            target=f"≥ {TARGET_RATIO:.2f}x baseline",
            met=ratio >= TARGET_RATIO,
        ),
        row("full stack p50", full.p50, "ms", baseline=baseline.p50),
        row("full stack p99", full.percentile(0.99), "ms", baseline=baseline.percentile(0.99)),
        row("full stack, document cache off", uncached.rps, "req/s", baseline=baseline.rps),
        # The shipped stack beside itself on asyncio's loop: the ratio is what uvloop is worth.
        row("full stack on uvloop", full.rps, "req/s", baseline=on_asyncio.rps),
    ]


if __name__ == "__main__":
    sys.exit(exit_code(main()))

"""Benchmark: `/v2/workspace/get` through the full stack vs a bare aiohttp handler.

The full stack is the all-in-one system: envelope middleware, workspace credentials (checked
against PostgreSQL, then cached), the rate limiter, the identity service and the response
envelope. It runs twice: as shipped (the workspace document cached in memory, dropped by identity
events) and with that cache off (one PostgreSQL query per request). The baseline answers the same
bytes from a constant. Target: the shipped full stack reaches 60 % of the baseline's requests/s.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import urllib.request
from pathlib import Path

from tests.bench.load import LoadResult, run_load
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
    with urllib.request.urlopen(request) as response:  # noqa: S310
        body: bytes = response.read()
        return body


def report(name: str, result: LoadResult) -> None:
    print(
        f"  {name:<34} {result.rps:>8,.0f} req/s   p50 {result.p50:6.2f} ms   "
        f"p99 {result.percentile(0.99):6.2f} ms   errors {result.errors}"
    )


def _measure_system(
    data_dir: Path, env: dict[str, str], connections: int, seconds: float
) -> tuple[LoadResult, bytes, dict[str, str]]:
    port = free_port()
    with system(port, data_dir, env):
        base = f"http://127.0.0.1:{port}"
        created = json.loads(post(base + "/v2/workspace/create", {"ownerEmail": "b@example.com"}))
        ws = created["result"]["data"]
        headers = {
            "x-redline-workspace-id": ws["id"],
            "x-redline-workspace-auth-token": ws["authToken"],
        }
        body = post(base + PATH, {}, headers)
        result = asyncio.run(
            run_load(
                "127.0.0.1", port, PATH, BODY, headers, connections=connections, seconds=seconds
            )
        )
    return result, body, headers


def main(connections: int = 32, seconds: float = 5.0) -> bool:
    with tempfile.TemporaryDirectory(prefix="redline-bench-") as tmp:
        tmp_dir = Path(tmp)
        full, body, headers = _measure_system(tmp_dir / "data", {}, connections, seconds)
        uncached, _, _ = _measure_system(
            tmp_dir / "data", {"REDLINE_WORKSPACE_CACHE_TTL_S": "0"}, connections, seconds
        )
        body_file = tmp_dir / "body.json"
        body_file.write_bytes(body)
        bare_port = free_port()
        with bare(bare_port, body_file):
            baseline = asyncio.run(
                run_load(
                    "127.0.0.1",
                    bare_port,
                    PATH,
                    BODY,
                    headers,
                    connections=connections,
                    seconds=seconds,
                )
            )
    ratio = full.rps / baseline.rps
    print(f"/v2/workspace/get: {connections} connections, {seconds:.0f} s each")
    report("full stack", full)
    report("full stack, document cache off", uncached)
    report("bare aiohttp handler", baseline)
    verdict = "meets" if ratio >= TARGET_RATIO else "MISSES"
    print(
        f"  ratio {ratio:.0%} of bare ({verdict} the {TARGET_RATIO:.0%} target); "
        f"cache off: {uncached.rps / baseline.rps:.0%}"
    )
    return ratio >= TARGET_RATIO


if __name__ == "__main__":
    main()

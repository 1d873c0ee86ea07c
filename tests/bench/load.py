"""A small HTTP/1.1 load generator: keep-alive connections, one request in flight on each.

It speaks raw asyncio streams so that the client costs little CPU beside the server under test,
and it measures every request's latency. Both the system and its baseline are driven by this same
client in the same run, so their ratio is fair even where absolute figures depend on the machine.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass

# Far above any latency a healthy run sees; a request that takes this long means a stall.
REQUEST_TIMEOUT_S = 30.0


@dataclass
class LoadResult:
    requests: int
    errors: int
    seconds: float
    latencies_ms: list[float]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies_ms) if self.latencies_ms else 0.0


def build_request(host: str, port: int, path: str, body: bytes, headers: dict[str, str]) -> bytes:
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    if length:
        await reader.readexactly(length)
    return status


class StalledRun(RuntimeError):
    """The server under test did not answer one request in time: the run ends here, loudly,
    rather than waiting for ever."""


async def _worker(host: str, port: int, request: bytes, stop_at: float, result: LoadResult) -> None:
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port), REQUEST_TIMEOUT_S
        )
    except TimeoutError:
        raise StalledRun(f"{host}:{port} took no connection in {REQUEST_TIMEOUT_S:g} s") from None
    try:
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            writer.write(request)
            try:
                status = await asyncio.wait_for(_read_response(reader), REQUEST_TIMEOUT_S)
            except TimeoutError:
                line = request.split(b"\r\n", 1)[0].decode()
                raise StalledRun(
                    f"{host}:{port} did not answer {line} within {REQUEST_TIMEOUT_S:g} s"
                ) from None
            result.latencies_ms.append((time.perf_counter() - started) * 1000)
            result.requests += 1
            if status != 200:
                result.errors += 1
    finally:
        writer.close()


async def run_load(
    host: str,
    port: int,
    path: str,
    body: bytes,
    headers: dict[str, str],
    *,
    connections: int,
    seconds: float,
    warmup_s: float = 1.0,
) -> LoadResult:
    request = build_request(host, port, path, body, headers)
    warm = LoadResult(0, 0, warmup_s, [])
    stop = time.perf_counter() + warmup_s
    await asyncio.gather(*(_worker(host, port, request, stop, warm) for _ in range(connections)))
    result = LoadResult(0, 0, seconds, [])
    started = time.perf_counter()
    stop = started + seconds
    await asyncio.gather(*(_worker(host, port, request, stop, result) for _ in range(connections)))
    result.seconds = time.perf_counter() - started
    return result

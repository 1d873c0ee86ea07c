"""A webhook receiver in its own process, for the delivery benchmark: HTTPS on 127.0.0.1,
answers 200 at once, and remembers when each `webhook-id` first arrived. The benchmark reads and
resets it with the client functions at the end of this module.

`python webhook_receiver.py PORT CERT_FILE KEY_FILE`; GET /count answers `{"count": n}` (distinct
webhook ids), GET /stats
`{"arrivals": {webhook id: [epoch seconds, annotation id]}, "requests": n}`; POST /reset
forgets everything.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import sys
import time
from typing import Any

import aiohttp
from aiohttp import web

arrivals: dict[str, tuple[float, str | None]] = {}
requests = 0


async def receive(request: web.Request) -> web.Response:
    global requests
    arrived = time.time()
    body = await request.read()
    requests += 1
    try:
        annotation_id = json.loads(body)["commentAnnotation"]["annotationId"]
    except (ValueError, KeyError, TypeError):
        annotation_id = None
    arrivals.setdefault(request.headers.get("webhook-id", ""), (arrived, annotation_id))
    return web.Response()


async def stats(_: web.Request) -> web.Response:
    return web.json_response({"arrivals": arrivals, "requests": requests})


async def count(_: web.Request) -> web.Response:
    return web.json_response({"count": len(arrivals)})


async def reset(_: web.Request) -> web.Response:
    global requests
    arrivals.clear()
    requests = 0
    return web.Response()


def main() -> None:
    port, cert_file, key_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    app = web.Application()
    app.router.add_get("/stats", stats)
    app.router.add_get("/count", count)
    app.router.add_post("/reset", reset)
    app.router.add_post("/{tail:.*}", receive)
    web.run_app(app, host="127.0.0.1", port=port, ssl_context=context, access_log=None, print=None)


# The benchmark's side: reading and resetting a running receiver.


async def read_arrivals(session: aiohttp.ClientSession, receiver: str) -> dict[str, list[Any]]:
    async with session.get(receiver + "/stats") as response:
        arrivals: dict[str, list[Any]] = (await response.json())["arrivals"]
        return arrivals


async def reset_receiver(session: aiohttp.ClientSession, receiver: str) -> None:
    async with session.post(receiver + "/reset"):
        pass


async def until_received(
    session: aiohttp.ClientSession, receiver: str, count: int
) -> dict[str, list[Any]]:
    """The arrivals once `count` distinct webhooks have come (two minutes at most)."""
    async with asyncio.timeout(120):
        while True:
            async with session.get(receiver + "/count") as response:
                if (await response.json())["count"] >= count:
                    return await read_arrivals(session, receiver)
            await asyncio.sleep(0.1)


if __name__ == "__main__":
    main()

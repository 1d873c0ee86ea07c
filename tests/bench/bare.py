"""The baseline: a bare aiohttp handler answering one POST with a constant JSON body.

Run as `python bare.py PORT BODY_FILE`; it serves BODY_FILE's bytes as the response.
"""

from __future__ import annotations

import sys
from pathlib import Path

from aiohttp import web


def main() -> None:
    port = int(sys.argv[1])
    payload = Path(sys.argv[2]).read_bytes()

    async def handle(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(body=payload, content_type="application/json")

    app = web.Application()
    app.router.add_post("/{tail:.*}", handle)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


if __name__ == "__main__":
    main()

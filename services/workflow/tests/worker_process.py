"""A step worker as a process of its own, for the test that kills workers mid-run.

Run as `python worker_process.py DATABASE_URL LEASE_S`; it runs webhook nodes against hosts on
127.0.0.1 (allow-listed) until killed.
"""

from __future__ import annotations

import asyncio
import secrets
import sys

from redline.pg import create_pool, holding
from redline.runtime.keys import Sealer
from redline.webhooks import AddressGuard, WebhookClient
from redline.workflow.callbacks.links import CallbackLinks
from redline.workflow.engine.engine import Engine
from redline.workflow.engine.nodes.slack import SlackSender
from redline.workflow.engine.runners import NodeRunners
from redline.workflow.engine.worker import StepWorker


async def main(database_url: str, lease_s: float) -> None:
    pool = await create_pool(database_url, max_size=8)
    engine = Engine(pool, retry_delays_s=[0.2, 0.2], max_steps_per_execution=1000)
    async with (
        WebhookClient(AddressGuard(["127.0.0.1"]), timeout_s=5.0) as client,
        holding(database_url) as holder,
    ):
        runners = NodeRunners(
            client, brands=["redline"], mail=None, slack=SlackSender(client), agents=None
        )
        key = secrets.token_bytes(32)
        worker = StepWorker(
            engine,
            runners,
            CallbackLinks(key, "http://127.0.0.1:1", "redline"),
            Sealer(key),
            concurrency=16,
            concurrency_per_key=16,
            lease_s=lease_s,
            holder=holder,
        )
        await worker.run()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], float(sys.argv[2])))

"""Answers the notify service's question before it signs a delivery: where does this
execution's webhook receiver live, and with which secret (`rpc.workflow.receivers.get`)."""

from __future__ import annotations

from nats.aio.subscription import Subscription

from redline.bus import Bus, rpc
from redline.envelope.errors import NotFound
from redline.pg import Pool
from redline.proto.rpc import Receiver, ReceiverGet
from redline.proto.subjects import RPC_WORKFLOW_RECEIVER
from redline.runtime.keys import Sealer
from redline.workflow.engine import storage


async def serve_receivers(bus: Bus, pool: Pool, sealer: Sealer) -> Subscription:
    async def answer(request: ReceiverGet) -> Receiver:
        async with pool.acquire() as conn:
            found = await storage.receiver_secret(
                conn, request.apiKey, request.executionId, request.workspaceId
            )
        if found is None:
            raise NotFound(f"Execution {request.executionId} has no webhook receiver.")
        url, sealed = found
        secret = sealer.unseal(sealed, storage.receiver_binding(request.executionId))
        return Receiver(url=url, secret=secret)

    return await rpc.serve(bus.nc, RPC_WORKFLOW_RECEIVER, ReceiverGet, answer)

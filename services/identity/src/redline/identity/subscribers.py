"""What identity answers and hears on NATS: credential checks for the other services, and its
own change events from other replicas (to drop cached workspace documents)."""

from __future__ import annotations

import msgspec
from aiohttp import web
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from redline.bus import Bus, DurableConsumer, rpc
from redline.envelope import AuthVerifier
from redline.identity.app_keys import MIGRATION
from redline.identity.service.workspace import WorkspaceService
from redline.proto.events import decode_event
from redline.proto.rpc import AuthVerified, AuthVerifyRequest, VerifyApiKey
from redline.proto.subjects import DOCUMENT_MIGRATION_REPLIES, IDENTITY_EVENTS, RPC_AUTH_VERIFY
from redline.runtime.resources import BUS


async def serve_auth_verify(bus: Bus, verifier: AuthVerifier) -> Subscription:
    async def verify(request: AuthVerifyRequest) -> AuthVerified:
        if isinstance(request, VerifyApiKey):
            key = await verifier.verify_api_key(request.apiKey, request.token)
            return AuthVerified(
                workspaceId=key.workspace_id, apiKey=key.api_key, userId=key.user_id
            )
        ws = await verifier.verify_workspace(request.workspaceId, request.token)
        return AuthVerified(workspaceId=ws.workspace_id)

    return await rpc.serve(bus.nc, RPC_AUTH_VERIFY, AuthVerifyRequest, verify)  # type: ignore[arg-type]


async def watch_identity_changes(bus: Bus, service: WorkspaceService) -> Subscription:
    async def on_event(msg: Msg) -> None:
        try:
            event = decode_event(msg.data)
        except msgspec.DecodeError:
            return
        service.forget_workspace(event.workspaceId)

    return await bus.nc.subscribe(IDENTITY_EVENTS, cb=on_event)


async def run_migration_reports(app: web.Application) -> None:
    """Collect participants' replies to document migrations (identity coordinates them)."""
    consumer = DurableConsumer(
        app[BUS].js,
        "identity-migration-reports",
        app[MIGRATION].on_reply,
        filter_subjects=DOCUMENT_MIGRATION_REPLIES,
    )
    await consumer.run()

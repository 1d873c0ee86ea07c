"""What identity answers on NATS: credential checks for the other services."""

from __future__ import annotations

from nats.aio.subscription import Subscription

from redline.bus import Bus, rpc
from redline.envelope import AuthVerifier
from redline.proto.rpc import AuthVerified, AuthVerifyRequest, VerifyApiKey
from redline.proto.subjects import RPC_AUTH_VERIFY


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

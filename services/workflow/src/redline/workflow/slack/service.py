"""Each API key's Slack bot token: set and read back (as a hint) by the key's owner, and read
by notification nodes of that key's executions, never by another key's.

The token is sealed with the workflow service's secrets key, bound to the API key, so a sealed
value copied to another key's row does not open. It is never logged nor returned.
"""

from __future__ import annotations

from redline.envelope import ApiKeyPrincipal
from redline.pg import Pool
from redline.proto.events import now_ms
from redline.runtime.keys import Sealer
from redline.workflow.slack import storage
from redline.workflow.slack.models import SlackConfigView, UpdateSlackConfig

_HINT_TAIL = 4


def _binding(api_key: str) -> str:
    return f"workflow.slack:{api_key}"


def token_hint(token: str) -> str:
    """`xoxb-…9f3a`: enough for the owner to tell tokens apart, nothing to post with."""
    kind = token.partition("-")[0]
    return f"{kind}-…{token[-_HINT_TAIL:]}"


class SlackCredentials:
    def __init__(self, pool: Pool, sealer: Sealer) -> None:
        self._pool = pool
        self._sealer = sealer

    async def update(
        self, principal: ApiKeyPrincipal, request: UpdateSlackConfig
    ) -> SlackConfigView:
        token = request.botToken
        async with self._pool.acquire() as conn:
            if token is None:
                await storage.delete(conn, principal.api_key)
                return SlackConfigView(botTokenSet=False)
            sealed = self._sealer.seal(token, _binding(principal.api_key))
            updated_at = now_ms()
            hint = token_hint(token)
            await storage.put(
                conn, principal.api_key, principal.workspace_id, sealed, hint, updated_at
            )
        return SlackConfigView(botTokenSet=True, botTokenHint=hint, updatedAt=updated_at)

    async def get(self, principal: ApiKeyPrincipal) -> SlackConfigView:
        async with self._pool.acquire() as conn:
            row = await storage.get(conn, principal.api_key)
        if row is None:
            return SlackConfigView(botTokenSet=False)
        return SlackConfigView(
            botTokenSet=True, botTokenHint=row.token_hint, updatedAt=row.updated_at
        )

    async def bot_token(self, api_key: str) -> str | None:
        """The key's own bot token, for its notification nodes; None when it set none."""
        async with self._pool.acquire() as conn:
            row = await storage.get(conn, api_key)
        if row is None:
            return None
        return self._sealer.unseal(row.bot_token_sealed, _binding(api_key))

"""Access checks for every service: "what may this user do on this document?", asked of identity
over `rpc.identity.access.check`, and "is it disabled?", over `rpc.identity.disablestate.get`;
both remembered for a few seconds.

Remembered answers are dropped for a whole API key as soon as identity announces
`identity.access.changed` (grants added, changed or removed in one of the key's organizations, or
an organization or document disabled or enabled),
heard on core NATS by every process; the time bound covers a missed announcement. Identity also
drops its own process's entries before a grant change returns, so that process reads its writes.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from redline.bus import Bus, rpc
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import PermissionDenied
from redline.proto.events import AccessChanged, decode_event
from redline.proto.rpc import (
    AccessCheck,
    AccessDecision,
    DisableState,
    DisableStateQuery,
    ResourceGrant,
)
from redline.proto.subjects import ACCESS_CHANGED, RPC_ACCESS_CHECK, RPC_DISABLE_STATE
from redline.runtime.cache import TtlCache
from redline.runtime.disable_state import refuse_if_disabled

log = logging.getLogger("redline.runtime.access")

DEFAULT_TTL_S = 5.0

_Key = tuple[str, str, str, str, tuple[ResourceGrant, ...]]


class AccessClient:
    def __init__(self, bus: Bus, ttl_s: float = DEFAULT_TTL_S, timeout_s: float = 2.0) -> None:
        self._bus = bus
        self._timeout_s = timeout_s
        self._decisions: TtlCache[_Key, AccessDecision] = TtlCache(ttl_s)
        self._disable_states: TtlCache[tuple[str, str, str | None], DisableState] = TtlCache(ttl_s)
        self._subscription: Subscription | None = None

    async def start(self) -> None:
        """Start listening for `identity.access.changed`."""
        if self._subscription is None:
            self._subscription = await self._bus.nc.subscribe(ACCESS_CHANGED, cb=self._on_changed())

    async def stop(self) -> None:
        subscription, self._subscription = self._subscription, None
        if subscription is not None:
            await subscription.unsubscribe()

    def forget_api_key(self, api_key: str) -> None:
        self._decisions.drop_where(lambda key: key[0] == api_key)
        self._disable_states.drop_where(lambda key: key[0] == api_key)

    async def disable_state(
        self, api_key: str, organization_id: str, document_id: str | None = None
    ) -> DisableState:
        """Whether the organization, or the document in it, is disabled."""
        key = (api_key, organization_id, document_id)
        hit = self._disable_states.get(key)
        if hit is not None:
            return hit
        epoch = self._disable_states.epoch
        state = await rpc.call(
            self._bus.nc,
            RPC_DISABLE_STATE,
            DisableStateQuery(api_key, organization_id, document_id),
            DisableState,
            timeout_s=self._timeout_s,
        )
        self._disable_states.put(key, state, since=epoch)
        return state

    async def require_writable(
        self, api_key: str, organization_id: str, document_id: str | None = None
    ) -> None:
        """FAILED_PRECONDITION when a write would touch a disabled organization or document
        (`redline.runtime.disable_state`), whoever the caller is."""
        state = await self.disable_state(api_key, organization_id, document_id)
        refuse_if_disabled(state, organization_id, document_id)

    async def check(
        self,
        api_key: str,
        organization_id: str,
        document_id: str,
        user_id: str,
        token_grants: tuple[ResourceGrant, ...] = (),
    ) -> AccessDecision:
        """The user's effective access to the document (role None: no access)."""
        # Grants of other organizations cannot bear on this decision; leaving them out of the
        # key lets one token's checks share entries across its organizations.
        grants = tuple(g for g in token_grants if g.organizationId == organization_id)
        key: _Key = (api_key, organization_id, document_id, user_id, grants)
        hit = self._decisions.get(key)
        if hit is not None:
            return hit
        epoch = self._decisions.epoch
        decision = await rpc.call(
            self._bus.nc,
            RPC_ACCESS_CHECK,
            AccessCheck(api_key, organization_id, document_id, user_id, grants),
            AccessDecision,
            timeout_s=self._timeout_s,
        )
        self._decisions.put(key, decision, since=epoch)
        return decision

    async def check_principal(
        self,
        principal: ApiKeyPrincipal,
        organization_id: str,
        document_id: str,
        user_id: str | None = None,
    ) -> AccessDecision:
        """Access of the principal's user (a user token), or of `user_id` named by a caller that
        holds the API key's own auth token. A user token cannot ask on behalf of another user."""
        if principal.user_id is not None:
            if user_id is not None and user_id != principal.user_id:
                raise PermissionDenied("A user token acts only as its own user.")
            user_id = principal.user_id
        if user_id is None:
            raise ValueError("an access check needs a user")
        grants = tuple(ResourceGrant(t, i, o, r) for t, i, o, r in principal.grants)
        return await self.check(principal.api_key, organization_id, document_id, user_id, grants)

    async def require(
        self,
        principal: ApiKeyPrincipal,
        organization_id: str,
        document_id: str,
        *,
        write: bool,
        user_id: str | None = None,
    ) -> AccessDecision:
        """Like `check_principal`, raising PERMISSION_DENIED unless the user may read (or, with
        `write`, write) the document. `viewer` reads; `editor` reads and writes."""
        decision = await self.check_principal(principal, organization_id, document_id, user_id)
        if decision.role is None:
            raise PermissionDenied("The user has no access to this document.")
        if write and decision.role != "editor":
            raise PermissionDenied("The user may only view this document.")
        return decision

    def _on_changed(self) -> Callable[[Msg], Awaitable[None]]:
        async def on_message(msg: Msg) -> None:
            try:
                event = decode_event(msg.data)
            except Exception:
                log.warning("undecodable access event ignored")
                return
            if isinstance(event, AccessChanged):
                self.forget_api_key(event.apiKey)

        return on_message


ACCESS_CLIENT = web.AppKey("redline_access_client", AccessClient)

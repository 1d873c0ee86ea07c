"""Asking a customer's permission provider what a user may do on a document.

Redline POSTs the request the hosted product's provider contract describes:
`{"data": {"requests": [{"userId", "resource": {"type": "document", "id", "source":
"setDocuments", "organizationId", "parentFolderId"?}}]}}`, with `Authorization: Bearer
<authToken>` when a token is configured, through the guarded webhook client (the address guard
checks the URL and every address it resolves to; no redirects are followed).

The answer is a list of decisions, or an object with `data` holding one (`success` and
`statusCode`, when present, must be true and 200; `signature`, when present, must verify). The
decision for this user, document and organization says `hasAccess`, maybe `accessRole` (an
editor when left out) and `expiresAt` (ms). Everything else fails closed: no answer, a timeout,
a status other than 2xx, a body that is not such JSON, no matching decision, a bad signature, or
a decision that has already expired all mean no access.

Decisions are remembered for `cache_ttl_s` seconds (less when they expire sooner), keyed by the
provider's settings too, so a changed address or token is asked afresh; a failed call, for
`failure_ttl_s`. Calls go through the key's circuit (`circuit`): a small pool of calls at once
and a breaker that stops calling a provider that keeps failing; a call the circuit refuses is no
access at once. A provider that fails to answer (no answer, a timeout, a non-2xx status, a body
that is not such JSON, `success` false) counts against its breaker; one that answers without a
usable decision for this user (none, expired, a bad signature) is no access but answered.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Literal

import msgspec

from redline.identity.fields import Role
from redline.identity.provider.circuit import ProviderCircuits
from redline.identity.provider.signature import PermissionSigner, SignedPermission
from redline.identity.provider.stored import ProviderSettings
from redline.runtime.cache import TtlCache
from redline.webhooks import WebhookClient

log = logging.getLogger("redline.identity.provider")

_JSON = {"Content-Type": "application/json"}
# A decision is worth caching only if it stays valid this long at least.
_MIN_VALID_S = 0.5


class _Decision(msgspec.Struct):
    userId: str
    resourceId: str
    type: str
    hasAccess: bool
    organizationId: str | None = None
    accessRole: Literal["viewer", "editor"] | None = None
    expiresAt: int | None = None


class _Wrapped(msgspec.Struct):
    data: list[_Decision]
    success: bool = True
    statusCode: int = 200
    signature: str | None = None


class _BadAnswer(Exception):
    """The provider's answer cannot be used; access is refused."""


class _NoAnswer(_BadAnswer):
    """The provider did not answer as a working provider does; counts against its breaker."""


class _Granted(msgspec.Struct, frozen=True):
    role: Role | None


_REFUSED = _Granted(None)


_Key = tuple[str, str, str, str, str, str, str]


class PermissionProvider:
    def __init__(
        self,
        client: WebhookClient,
        signer: PermissionSigner,
        cache_ttl_s: float,
        circuits: ProviderCircuits,
        failure_ttl_s: float,
    ) -> None:
        self._client = client
        self._signer = signer
        self._cache_ttl_s = cache_ttl_s
        self._decisions: TtlCache[_Key, _Granted] = TtlCache(cache_ttl_s)
        self._failures: TtlCache[_Key, _Granted] = TtlCache(failure_ttl_s)
        self._circuits = circuits

    async def role(
        self,
        api_key: str,
        settings: ProviderSettings,
        token: str,
        organization_id: str,
        document_id: str,
        user_id: str,
        folder_id: str | None,
    ) -> Role | None:
        """The user's role on the document by the provider's word; None: no access."""
        url = settings.permissionProviderUrl
        key: _Key = (
            api_key,
            url,
            settings.authTokenSealed,
            organization_id,
            document_id,
            user_id,
            folder_id or "",
        )
        hit = self._decisions.get(key) or self._failures.get(key)
        if hit is not None:
            return hit.role
        if not url:
            return None  # switched on without an address: nobody to ask
        lease = await self._circuits.lease((api_key, url))
        if lease is None:
            return None  # the key's pool is busy or its breaker open: no access, at once
        try:
            decision = await self._ask(
                api_key, url, token, organization_id, document_id, user_id, folder_id
            )
            lease.succeeded()
        except _BadAnswer as exc:
            if isinstance(exc, _NoAnswer):
                lease.failed()
            else:
                lease.succeeded()  # it answered; the answer gives no access
            log.warning("permission provider: access refused, %s", exc)
            self._failures.put(key, _REFUSED)
            return None
        finally:
            lease.release()
        return self._remember(key, decision)

    def _remember(self, key: _Key, decision: _Decision) -> Role | None:
        role: Role | None = (decision.accessRole or "editor") if decision.hasAccess else None
        valid_s = self._cache_ttl_s
        if decision.expiresAt is not None:
            valid_s = min(valid_s, decision.expiresAt / 1000 - time.time())
        if valid_s >= _MIN_VALID_S:
            self._decisions.put(key, _Granted(role))
        return role

    async def _ask(
        self,
        api_key: str,
        url: str,
        token: str,
        organization_id: str,
        document_id: str,
        user_id: str,
        folder_id: str | None,
    ) -> _Decision:
        resource: dict[str, Any] = {
            "type": "document",
            "id": document_id,
            "source": "setDocuments",
            "organizationId": organization_id,
        }
        if folder_id is not None:
            resource["parentFolderId"] = folder_id
        body = msgspec.json.encode(
            {"data": {"requests": [{"userId": user_id, "resource": resource}]}}
        )
        headers = {**_JSON, "Authorization": f"Bearer {token}"} if token else _JSON
        reply = await self._client.request("POST", url, body, headers)
        if not reply.outcome.ok:
            raise _NoAnswer(reply.outcome.error or "no answer")
        if reply.truncated:
            raise _NoAnswer("the answer is too long")
        decisions, signature = _decode(reply.body)
        if signature is not None and not self._signer.verifies(
            api_key, [_signed(d) for d in decisions], signature
        ):
            raise _BadAnswer("the answer's signature does not verify")
        for d in decisions:
            if (d.userId, d.resourceId, d.type) == (user_id, document_id, "document") and (
                d.organizationId in (None, organization_id)
            ):
                if d.expiresAt is not None and d.expiresAt <= time.time() * 1000:
                    raise _BadAnswer("the decision has expired")
                return d
        raise _BadAnswer("the answer holds no decision for this user and document")


def _decode(body: bytes) -> tuple[list[_Decision], str | None]:
    try:
        answer = msgspec.json.decode(body, type=list[_Decision] | _Wrapped)
    except msgspec.DecodeError as exc:
        raise _NoAnswer(f"the answer is not a list of decisions ({exc})") from None
    if isinstance(answer, list):
        return answer, None
    if not answer.success or answer.statusCode != 200:
        raise _NoAnswer("the answer says it did not succeed")
    return answer.data, answer.signature


def _signed(d: _Decision) -> SignedPermission:
    return SignedPermission(d.userId, d.resourceId, d.type, d.hasAccess, d.accessRole, d.expiresAt)

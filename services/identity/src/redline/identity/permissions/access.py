"""Answering access questions: what role a user has on a document, and the RPC other services
ask (`rpc.identity.access.check`). This is the one access rule: Redline's own grants (the access
model), or, while the API key has a permission provider switched on, the provider's word."""

from __future__ import annotations

from redline.identity.fields import AccessType
from redline.identity.key_settings import storage as config_storage
from redline.identity.permissions import storage
from redline.identity.permissions.access_model import Decision, decide, with_token_grants
from redline.identity.provider.client import PermissionProvider
from redline.identity.provider.stored import open_token, settings_of
from redline.identity.tokens import Sealer
from redline.pg import Pool


class AccessService:
    def __init__(
        self,
        pool: Pool,
        default_access_type: AccessType,
        provider: PermissionProvider | None = None,
        config_sealer: Sealer | None = None,
    ) -> None:
        self._pool = pool
        self._default_access_type: AccessType = default_access_type
        # Without them, keys' permission providers are never asked (and always refused).
        self._provider = provider
        self._config_sealer = config_sealer

    async def effective_access(
        self,
        api_key: str,
        organization_id: str,
        document_id: str,
        user_id: str,
        token_grants: dict[tuple[str, str], str] | None = None,
    ) -> Decision:
        """The user's role on the document. `token_grants` are resources a user token carries,
        which count as grants for the requests made with that token (not while a permission
        provider decides: then only its word counts)."""
        facts = await storage.access_facts(
            self._pool, api_key, organization_id, document_id, user_id
        )
        stored = await config_storage.read_config(self._pool, api_key)
        provider = settings_of(stored.permission_provider)
        if provider.usePermissionProvider:
            access_type: AccessType = facts.access_type or self._default_access_type
            if self._provider is None or self._config_sealer is None:
                return Decision(None, access_type, "provider")
            role = await self._provider.role(
                api_key,
                provider,
                open_token(self._config_sealer, api_key, provider),
                organization_id,
                document_id,
                user_id,
                facts.folders[0].folder_id if facts.folders else None,
            )
            return Decision(role, access_type, "provider")
        if token_grants:
            facts = type(facts)(
                facts.organization_id,
                facts.document_id,
                facts.access_type,
                facts.folders,
                with_token_grants(facts.grants, token_grants),
            )
        return decide(facts, self._default_access_type)

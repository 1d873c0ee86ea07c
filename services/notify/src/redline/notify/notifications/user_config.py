"""Rules of /v2/notifications/config/get|set: each user's channel preferences (inbox, email,
slack: ALL, MINE or NONE) per organization and per document.

A document's config holds only the channels set for it; the organization-level config fills in
the rest, and the defaults (inbox and email ALL) what neither sets. A user token reads and sets
only its own user's config.
"""

from __future__ import annotations

from typing import Any

import msgspec

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.notify.notifications import models, storage
from redline.notify.notifications.service import own_user
from redline.pg import Pool

SET = "User config set successfully."
ORGANIZATION = ""  # the document id of organization-level rows


def effective(*layers: dict[str, Any]) -> models.EffectiveConfig:
    """The channels of the later layers over the earlier ones, over the defaults."""
    merged: dict[str, Any] = {}
    for layer in layers:
        merged.update(layer)
    return msgspec.convert(merged, models.EffectiveConfig)


class UserConfigService:
    def __init__(self, pool: Pool) -> None:
        self._pool = pool

    async def get(
        self, caller: ApiKeyPrincipal, request: models.GetUserConfig
    ) -> list[models.UserConfig]:
        user_id = own_user(caller, request.userId, "data.userId")
        if user_id is None:
            raise InvalidArgument.field("data.userId", "userId is required.", "missing_field")
        documents = list(dict.fromkeys(request.documentIds or []))
        if not documents and not request.getOrganizationConfig:
            raise InvalidArgument.field(
                "data.documentIds",
                "Give documentIds, or getOrganizationConfig true.",
                "missing_field",
            )
        stored = await storage.user_configs(
            self._pool, caller.api_key, request.organizationId, user_id, documents
        )
        organization = stored.get(ORGANIZATION, {})

        def entry(config: models.EffectiveConfig, document_id: Any) -> models.UserConfig:
            metadata = models.ConfigMetadata(
                organizationId=request.organizationId,
                apiKey=caller.api_key,
                userId=user_id,
                documentId=document_id,
            )
            return models.UserConfig(config, metadata)

        found = []
        if request.getOrganizationConfig:
            found.append(entry(effective(organization), msgspec.UNSET))
        for document_id in documents:
            found.append(entry(effective(organization, stored.get(document_id, {})), document_id))
        return found

    async def set(
        self, caller: ApiKeyPrincipal, request: models.SetUserConfig
    ) -> dict[str, models.ConfigSet]:
        users = list(dict.fromkeys(request.userIds))
        for index, user_id in enumerate(users):
            own_user(caller, user_id, f"data.userIds[{index}]")
        channels: dict[str, str] = msgspec.to_builtins(request.config)
        if not channels:
            raise InvalidArgument.field(
                "data.config", "Give at least one of inbox, email, slack.", "missing_field"
            )
        documents = list(dict.fromkeys(request.documentIds or [])) or [ORGANIZATION]
        pairs = [(u, d) for u in users for d in documents]
        async with self._pool.acquire() as conn, conn.transaction():
            await storage.merge_user_configs(
                conn, caller.api_key, request.organizationId, pairs, channels
            )
        # Keyed by user id, as the reference answers; by user and document when several.
        keyed = len(documents) > 1
        return {
            (f"{u}:{d}" if keyed else u): models.ConfigSet(
                success=True, userId=u, documentId=d or msgspec.UNSET, message=SET
            )
            for u, d in pairs
        }

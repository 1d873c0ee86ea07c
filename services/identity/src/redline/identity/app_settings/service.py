"""Rules of an API key's app configuration.

- Updates merge field by field; nothing is ever removed. A request with no field is refused.
- AI model keys are sealed at rest (bound to the API key and provider) and only ever shown
  masked, as `aiModelsConfig[provider].displayText`.
- `defaultDocumentAccessType`, `enablePrivateComments`, `requireJwtToken` and
  `requireAutoOrgUser` are kept and reported for the browser SDK. The access rule does not read
  them: documents that set no access type follow the service's setting (`default_access_type`),
  which `get` reports until the key stores its own value.
"""

from __future__ import annotations

import base64

import msgspec

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity import errors
from redline.identity.app_settings import models
from redline.identity.caller import require_key_caller
from redline.identity.fields import AccessType
from redline.identity.key_settings import storage
from redline.identity.key_settings.storage import JsonObject, Section
from redline.identity.tokens import Sealer
from redline.identity.workspace.storage import owner_email
from redline.pg import Connection, Pool

# Redline has no plans; the hosted product reports one here.
PLAN_INFO = {"type": "self-hosted"}
_SWITCHES = ("enablePrivateComments", "requireJwtToken", "requireAutoOrgUser")


def mask_key(key: str) -> str:
    """A provider key as it may be shown: a short prefix and the last three characters, or
    nothing of it when it is too short to leave most of it hidden."""
    if len(key) < 12:
        return "..."
    return f"{key[: min(7, len(key) // 4)]}...{key[-3:]}"


def _ai_binding(api_key: str, provider: str) -> str:
    return f"{api_key}:ai:{provider}"


def reseal_app(
    app: JsonObject | None, sealer: Sealer, source: str, target: str
) -> JsonObject | None:
    """`source`'s app configuration as `target` stores it: its AI model keys sealed for
    `target` (a sealed value opens only for the key it was sealed for)."""
    if app is None:
        return None
    copied = dict(app)
    ai_models = {}
    for provider, entry in app.get("aiModels", {}).items():
        key = sealer.unseal(base64.b64decode(entry["sealed"]), _ai_binding(source, provider))
        sealed = sealer.seal(key, _ai_binding(target, provider))
        ai_models[provider] = {**entry, "sealed": base64.b64encode(sealed).decode()}
    if ai_models:
        copied["aiModels"] = ai_models
    return copied


def _shown(app: JsonObject) -> dict[str, models.AiModelShown]:
    return {
        provider: models.AiModelShown(displayText=entry["displayText"])
        for provider, entry in app.get("aiModels", {}).items()
    }


async def store_initial_app(conn: Connection, api_key: str, switches: dict[str, bool]) -> None:
    """Store the app switches given at `apikey/create` as the key's app config."""
    unknown = set(switches) - set(_SWITCHES)
    if unknown:
        raise ValueError(f"not app switches: {sorted(unknown)}")
    if switches:
        await storage.lock_config(conn, api_key)
        await storage.save_section(conn, api_key, Section.APP, dict(switches))


class AppSettingsService:
    def __init__(
        self,
        pool: Pool,
        sealer: Sealer,
        service_default: AccessType,
    ) -> None:
        self._pool = pool
        self._sealer = sealer
        self._service_default: AccessType = service_default

    async def get(self, caller: ApiKeyPrincipal) -> models.AppConfig:
        require_key_caller(caller)
        email = await owner_email(self._pool, caller.workspace_id)
        if email is None:
            raise errors.workspace_not_found()
        app = (await storage.read_config(self._pool, caller.api_key)).app or {}
        shown = _shown(app)
        return models.AppConfig(
            ownerEmail=email,
            planInfo=dict(PLAN_INFO),
            defaultDocumentAccessType=app.get("defaultDocumentAccessType", self._service_default),
            isPrivateCommentsEnabled=app.get("enablePrivateComments", False),
            requireJwtToken=app.get("requireJwtToken", False),
            requireAutoOrgUser=app.get("requireAutoOrgUser", False),
            aiModelsConfig=shown if shown else msgspec.UNSET,
        )

    async def update(
        self, caller: ApiKeyPrincipal, request: models.UpdateAppConfig
    ) -> models.AppConfigUpdated:
        require_key_caller(caller)
        sent = msgspec.to_builtins(request)
        if not sent:
            raise InvalidArgument.field(
                "data", "At least one field must be provided for update", code="missing_field"
            )
        async with self._pool.acquire() as conn, conn.transaction():
            stored = await storage.lock_config(conn, caller.api_key)
            app = self._merged(caller.api_key, dict(stored.app or {}), request)
            await storage.save_section(conn, caller.api_key, Section.APP, app)
        return self._echo(app, request)

    def _merged(self, api_key: str, app: JsonObject, request: models.UpdateAppConfig) -> JsonObject:
        for name in _SWITCHES:
            value = getattr(request, name)
            if value is not None:
                app[name] = value
        if request.defaultDocumentAccessType is not None:
            app["defaultDocumentAccessType"] = request.defaultDocumentAccessType
        models_stored = dict(app.get("aiModels", {}))
        for entry in request.aiModelApiKey or []:
            sealed = self._sealer.seal(entry.customerApiKey, _ai_binding(api_key, entry.provider))
            models_stored[entry.provider] = {
                "sealed": base64.b64encode(sealed).decode(),
                "displayText": mask_key(entry.customerApiKey),
            }
        if models_stored:
            app["aiModels"] = models_stored
        return app

    def _echo(self, app: JsonObject, request: models.UpdateAppConfig) -> models.AppConfigUpdated:
        sent = msgspec.to_builtins(request)
        echoed = {name: app[name] for name in sent if name != "aiModelApiKey"}
        if "aiModelApiKey" in sent:
            echoed["aiModelsConfig"] = {
                provider: {"displayText": entry["displayText"]}
                for provider, entry in app["aiModels"].items()
            }
        return msgspec.convert(echoed, models.AppConfigUpdated)

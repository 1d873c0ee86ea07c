"""The reference's example requests for the workspace (workspaces, API keys, auth tokens, allowed
domains, the per-key configurations, the owner's mail), with the advanced webhook endpoints'
(replay_advanced_webhook_samples) and those of `/v2/auth` (replay_auth_samples) before the
permission provider's, in an order that lets later examples find what earlier ones made.

The workspace pages name API keys by the placeholder `velt_api_key_1`: the id the server generated
when the key was made, so the samples send the key they got back (`$apiKey`, `$newApiKey`)."""

from __future__ import annotations

from tests.api.replay_advanced_webhook_samples import ADVANCED_WEBHOOKS
from tests.api.replay_auth_samples import AUTH_SAMPLES
from tests.api.replay_support import Sample

WORKSPACES = [
    Sample(
        # Public: no credentials. A second workspace for the replay's owner address: Redline
        # has no plans, so an address may own more than one.
        page="workspace/create",
        path="/v2/workspace/create",
        data={
            "ownerEmail": "owner@example.com",
            "name": "John Doe",
            "workspaceName": "My Workspace",
            "avatar": "https://example.com/avatar.png",
        },
        level="none",
        fields=(
            "data.id",
            "data.name",
            "data.owner.email",
            "data.owner.id",
            "data.owner.name",
            "data.owner.avatar",
            "data.authToken",
            "data.apiKeyList",
        ),
    ),
    Sample(
        page="workspace/get",
        path="/v2/workspace/get",
        data={},
        level="workspace",
        fields=(
            "data.id",
            "data.name",
            "data.owner.email",
            "data.owner.id",
            "data.owner.name",
            "data.owner.avatar",
            "data.authToken",
            "data.apiKeyList",
        ),
    ),
    Sample(
        page="apikey/create: testing key",
        path="/v2/workspace/apikey/create",
        data={"ownerEmail": "owner@example.com", "type": "testing", "createAuthToken": True},
        level="workspace",
        fields=("data.apiKey",),
        save={"newApiKey": "data.apiKey"},
    ),
    Sample(
        page="apikey/create: production key (default North America region)",
        path="/v2/workspace/apikey/create",
        data={
            "ownerEmail": "owner@example.com",
            "type": "production",
            "apiKeyName": "Production Key",
            "createAuthToken": True,
        },
        level="workspace",
        fields=("data.apiKey",),
    ),
    Sample(
        page="apikey/create: production key with region selection (Europe)",
        path="/v2/workspace/apikey/create",
        data={
            "ownerEmail": "owner@example.com",
            "type": "production",
            "apiKeyName": "EU Production Key",
            "persistenceDBRegion": "eur3",
            "realtimeDBRegion": "europe-west1",
            "createAuthToken": True,
        },
        level="workspace",
        fields=("data.apiKey",),
    ),
    Sample(
        page="apikey/update",
        path="/v2/workspace/apikey/update",
        data={"apiKey": "$newApiKey", "apiKeyName": "Updated Production Key"},
        level="workspace",
        fields=("data",),
    ),
    Sample(
        page="apikeys/get",
        path="/v2/workspace/apikeys/get",
        data={"pageSize": 50},
        level="workspace",
        fields=("data.0.id", "data.0.apiKeyName", "data.0.type", "data.3.id"),
    ),
    Sample(
        page="authtokens/get",
        path="/v2/workspace/authtokens/get",
        data={"apiKey": "$apiKey"},
        level="workspace",
        fields=(
            "data.apiKey",
            "data.authTokens.0.token",
            "data.authTokens.0.name",
            "data.authTokens.0.domains",
        ),
    ),
    Sample(
        # The key made above: resetting the replay's own key would end the auth token the
        # API-key-level samples below are sent with.
        page="authtoken/reset",
        path="/v2/workspace/authtoken/reset",
        data={"apiKey": "$newApiKey"},
        level="workspace",
        fields=(
            "data.apiKey",
            "data.newAuthToken.token",
            "data.newAuthToken.name",
            "data.newAuthToken.domains",
        ),
    ),
]

DOMAINS = [
    Sample(
        page="domains/add",
        path="/v2/workspace/domains/add",
        data={"domains": ["https://www.google.com", "https://*.firebase.com"]},
        fields=("data.domainsAdded.0", "data.domainsAdded.1"),
    ),
    Sample(
        page="domains/get",
        path="/v2/workspace/domains/get",
        data={},
        fields=("data.allowedDomains.0",),
    ),
    Sample(
        page="domains/delete",
        path="/v2/workspace/domains/delete",
        data={"domains": ["https://www.google.com", "https://*.firebase.com"]},
        fields=("data.domainsRemoved.0", "data.domainsRemoved.1"),
    ),
]

CONFIGS = [
    Sample(
        page="webhookconfig/get",
        path="/v2/workspace/webhookconfig/get",
        data={},
        fields=(
            "data.useWebhookService",
            "data.webhookServiceConfig.authToken",
            "data.webhookServiceConfig.rawNotificationUrl",
            "data.webhookServiceConfig.processedNotificationUrl",
        ),
    ),
    Sample(
        page="webhookconfig/update",
        path="/v2/workspace/webhookconfig/update",
        data={
            "useWebhookService": True,
            "webhookServiceConfig": {
                "authToken": "webhook_auth_token_here",
                "rawNotificationUrl": "https://example.com/webhooks/raw",
                "processedNotificationUrl": "https://example.com/webhooks/processed",
            },
        },
        fields=(
            "data.useWebhookService",
            "data.webhookServiceConfig.authToken",
            "data.webhookServiceConfig.rawNotificationUrl",
            "data.webhookServiceConfig.processedNotificationUrl",
        ),
    ),
    Sample(
        page="activityconfig/get",
        path="/v2/workspace/activityconfig/get",
        data={},
        fields=("data.activityServiceConfig.isEnabled",),
    ),
    Sample(
        page="activityconfig/update",
        path="/v2/workspace/activityconfig/update",
        data={"activityServiceConfig": {"isEnabled": True, "immutable": False}},
        fields=(
            "data.activityServiceConfig.isEnabled",
            "data.activityServiceConfig.immutable",
            "data.activityServiceConfig.enabledTime",
        ),
    ),
    Sample(
        page="notificationconfig/get",
        path="/v2/workspace/notificationconfig/get",
        data={},
        fields=(
            "data.useNotificationService",
            "data.notificationServiceConfig.delayConfig.isEnabled",
            "data.notificationServiceConfig.delayConfig.delaySeconds",
            "data.notificationServiceConfig.batchConfig.document.isEnabled",
            "data.notificationServiceConfig.batchConfig.user.maxActivities",
        ),
    ),
    Sample(
        page="notificationconfig/update",
        path="/v2/workspace/notificationconfig/update",
        data={
            "useNotificationService": True,
            "notificationServiceConfig": {"delayConfig": {"isEnabled": True, "delaySeconds": 30}},
        },
        fields=(
            "data.useNotificationService",
            "data.notificationServiceConfig.delayConfig.isEnabled",
            "data.notificationServiceConfig.delayConfig.delaySeconds",
        ),
    ),
    Sample(
        page="apikeyconfig/get",
        path="/v2/workspace/apikeyconfig/get",
        data={},
        fields=(
            "data.ownerEmail",
            "data.planInfo.type",
            "data.defaultDocumentAccessType",
            "data.isPrivateCommentsEnabled",
            "data.requireJwtToken",
            "data.requireAutoOrgUser",
        ),
    ),
    Sample(
        # The page's AI model keys are placeholders of each provider's key format.
        page="apikeyconfig/update",
        path="/v2/workspace/apikeyconfig/update",
        data={
            "requireJwtToken": True,
            "defaultDocumentAccessType": "restricted",
            "aiModelApiKey": [
                {"provider": "openai", "customerApiKey": "sk-openai-..."},
                {"provider": "anthropic", "customerApiKey": "sk-ant-..."},
                {"provider": "gemini", "customerApiKey": "AIza..."},
            ],
        },
        fields=(
            "data.requireJwtToken",
            "data.defaultDocumentAccessType",
            "data.aiModelsConfig.openai.displayText",
            "data.aiModelsConfig.anthropic.displayText",
            "data.aiModelsConfig.gemini.displayText",
        ),
    ),
    Sample(
        page="emailconfig/get",
        path="/v2/workspace/emailconfig/get",
        data={},
        fields=(
            "data.useEmailService",
            "data.emailServiceConfig.type",
            "data.emailServiceConfig.apiKey",
            "data.emailServiceConfig.fromEmail",
            "data.emailServiceConfig.fromCompany",
            "data.emailServiceConfig.commentTemplateId",
            "data.emailServiceConfig.tagTemplateId",
        ),
    ),
    Sample(
        page="emailconfig/update",
        path="/v2/workspace/emailconfig/update",
        data={
            "useEmailService": True,
            "emailServiceConfig": {
                "type": "sendgrid",
                "apiKey": "SG.xxxxxxxxxx",
                "fromEmail": "noreply@example.com",
                "fromCompany": "Example Corp",
            },
        },
        fields=(
            "data.useEmailService",
            "data.emailServiceConfig.type",
            "data.emailServiceConfig.apiKey",
            "data.emailServiceConfig.fromEmail",
            "data.emailServiceConfig.fromCompany",
        ),
    ),
]

PERMISSION_PROVIDER = [
    Sample(
        page="permissionproviderconfig/get",
        path="/v2/workspace/permissionproviderconfig/get",
        data={},
        fields=(
            "data.usePermissionProvider",
            "data.permissionProviderConfig.permissionProviderUrl",
            "data.permissionProviderConfig.authToken",
        ),
    ),
    Sample(
        # Last: while the provider is on it alone decides the key's document access.
        page="permissionproviderconfig/update",
        path="/v2/workspace/permissionproviderconfig/update",
        data={
            "usePermissionProvider": True,
            "permissionProviderConfig": {
                "permissionProviderUrl": "https://example.com/permissions",
                "authToken": "provider_auth_token_here",
            },
        },
    ),
]

SAMPLES = [
    *WORKSPACES,
    *DOMAINS,
    *CONFIGS,
    *ADVANCED_WEBHOOKS,
    *AUTH_SAMPLES,
    *PERMISSION_PROVIDER,
]

OWNER_MAIL = [
    Sample(
        page="email/status",
        path="/v2/workspace/email/status",
        data={"ownerEmail": "owner@example.com"},
        level="none",
        fields=("data.verified",),
    ),
    Sample(
        page="email/send-login-link",
        path="/v2/workspace/email/send-login-link",
        data={"email": "owner@example.com", "continueUrl": "https://console.velt.dev/"},
        level="none",
        fields=("data",),
    ),
]

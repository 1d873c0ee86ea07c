"""The official SDK's workspace, token and signature methods against Redline, unchanged but for
its base URL: workspace-level calls carry the workspace id and its auth token as the SDK sends
them (`x-velt-workspace-id`, the token in `x-velt-auth-token`)."""

from __future__ import annotations

import asyncio

import pytest
from velt_py.models import (
    AcceptRejectAdditionalUrlRequest,
    AddDomainsRequest,
    AddUsersRequest,
    CopyApiKeyRequest,
    CreateAdvancedWebhookEndpointRequest,
    CreateApiKeyRequest,
    CreateDomainRequest,
    CreateWorkspaceRequest,
    DeleteAdvancedWebhookEndpointRequest,
    DeleteDomainsRequest,
    EnsureWorkspaceAuthTokenRequest,
    GenerateSignatureRequest,
    GetActivityConfigRequest,
    GetAdvancedWebhookConfigRequest,
    GetAdvancedWebhookEndpointSecretRequest,
    GetAdvancedWebhookEndpointsRequest,
    GetApiKeyMetadataRequest,
    GetApiKeysRequest,
    GetAuthTokensRequest,
    GetDomainsRequest,
    GetEmailConfigRequest,
    GetEmailStatusRequest,
    GetPermissionProviderConfigRequest,
    GetRequestedDomainsRequest,
    GetWebhookConfigRequest,
    GetWorkspaceRequest,
    ResetAuthTokenRequest,
    UpdateActivityConfigRequest,
    UpdateAdvancedWebhookConfigRequest,
    UpdateAdvancedWebhookEndpointRequest,
    UpdateApiKeyMetadataRequest,
    UpdateApiKeyRequest,
    UpdateEmailConfigRequest,
    UpdatePermissionProviderConfigRequest,
    UpdateWebhookConfigRequest,
)

from redline.testing.api import ApiClient, StartApi
from tests.api.sdk_support import Sdk, sdk_for


@pytest.fixture
async def sdk(
    target_url: str | None, start_api: StartApi, api: ApiClient, monkeypatch: pytest.MonkeyPatch
) -> Sdk:
    return await sdk_for(target_url, start_api, api, monkeypatch)


async def test_workspace_keys_and_tokens(sdk: Sdk) -> None:
    workspace = sdk.api.workspace
    another = await sdk.ok(
        workspace.createWorkspace,
        CreateWorkspaceRequest(ownerEmail="second@example.com", workspaceName="Second"),
    )
    assert another["id"] != sdk.workspace.id
    got = await sdk.ok(workspace.getWorkspace, GetWorkspaceRequest())
    assert got["id"] == sdk.workspace.id
    ensured = await sdk.ok(workspace.ensureWorkspaceAuthToken, EnsureWorkspaceAuthTokenRequest())
    assert ensured["workspaceId"] == sdk.workspace.id

    created = await sdk.ok(
        workspace.createApiKey,
        CreateApiKeyRequest(type="testing", apiKeyName="staging", createAuthToken=True),
    )
    new_key = created["apiKey"]
    await sdk.ok(workspace.updateApiKey, UpdateApiKeyRequest(apiKey=new_key, apiKeyName="stage"))
    listed = await sdk.ok(workspace.getApiKeys, GetApiKeysRequest())
    assert new_key in str(listed)
    tokens = await sdk.ok(workspace.getAuthTokens, GetAuthTokensRequest(apiKey=new_key))
    assert tokens["authTokens"]
    await sdk.ok(workspace.resetAuthToken, ResetAuthTokenRequest(apiKey=new_key))
    await sdk.ok(
        workspace.copyApiKey,
        CopyApiKeyRequest(sourceApiKey=sdk.workspace.api_key, targetApiKey=new_key),
    )


async def test_key_configuration(sdk: Sdk) -> None:
    workspace = sdk.api.workspace
    await sdk.ok(workspace.addDomains, AddDomainsRequest(domains=["app.example.com"]))
    assert "app.example.com" in str(await sdk.ok(workspace.getDomains, GetDomainsRequest()))
    await sdk.ok(workspace.deleteDomains, DeleteDomainsRequest(domains=["app.example.com"]))

    await sdk.ok(
        workspace.updateWebhookConfig,
        UpdateWebhookConfigRequest(
            useWebhookService=False,
            webhookServiceConfig={"rawNotificationUrl": "https://hooks.example.com/raw"},
        ),
    )
    hooks = await sdk.ok(workspace.getWebhookConfig, GetWebhookConfigRequest())
    assert "https://hooks.example.com/raw" in str(hooks)
    await sdk.ok(
        workspace.updateActivityConfig,
        UpdateActivityConfigRequest(activityServiceConfig={"isEnabled": True}),
    )
    assert await sdk.ok(workspace.getActivityConfig, GetActivityConfigRequest())
    await sdk.ok(
        workspace.updateEmailConfig,
        UpdateEmailConfigRequest(
            useEmailService=True, emailServiceConfig={"type": "default", "fromCompany": "Acme"}
        ),
    )
    assert "Acme" in str(await sdk.ok(workspace.getEmailConfig, GetEmailConfigRequest()))
    status = await sdk.call(
        workspace.getEmailStatus, GetEmailStatusRequest(ownerEmail="owner@example.com")
    )
    assert "result" in status, status
    await sdk.ok(
        workspace.updateApiKeyMetadata,
        UpdateApiKeyMetadataRequest(enablePrivateComments=True, requireAutoOrgUser=False),
    )
    app = await sdk.ok(workspace.getApiKeyMetadata, GetApiKeyMetadataRequest())
    assert app["isPrivateCommentsEnabled"] is True
    await sdk.ok(
        workspace.updatePermissionProviderConfig,
        UpdatePermissionProviderConfigRequest(usePermissionProvider=False),
    )
    assert await sdk.call(
        workspace.getPermissionProviderConfig, GetPermissionProviderConfigRequest()
    )


async def test_domain_requests(sdk: Sdk) -> None:
    workspace = sdk.api.workspace
    await sdk.ok(
        sdk.api.users.addUsers,
        AddUsersRequest(organizationId="acme", users=[{"userId": "ana"}], createOrganization=True),
    )
    await sdk.ok(
        workspace.createDomainRequest,
        CreateDomainRequest(
            domain="docs.example.com", clientDocumentId="contract", organizationId="acme"
        ),
    )
    open_requests = await sdk.ok(workspace.getRequestedDomains, GetRequestedDomainsRequest())
    [request] = [r for r in open_requests if r["domain"] == "docs.example.com"]
    await sdk.ok(
        workspace.acceptRejectAdditionalUrlRequest,
        AcceptRejectAdditionalUrlRequest(action="accept", id=request["id"], clientDocId="contract"),
    )
    assert "docs.example.com" in str(await sdk.ok(workspace.getDomains, GetDomainsRequest()))


async def test_user_tokens_and_signatures(sdk: Sdk) -> None:
    # The deprecated call posts to its own full URL, which the SDK keeps apart.
    with pytest.warns(DeprecationWarning, match="getToken"):
        token = await asyncio.to_thread(
            sdk.api.token.getToken, organizationId="acme", userId="ana", email="ana@example.com"
        )
    assert token["success"] is True, token
    assert token["data"]["token"]
    signed = await sdk.ok(
        sdk.api.accessControl.generateSignature,
        GenerateSignatureRequest(
            permissions=[
                {"userId": "ana", "resourceId": "contract", "type": "document", "hasAccess": True}
            ]
        ),
    )
    assert signed


async def test_advanced_webhook_endpoints(sdk: Sdk) -> None:
    workspace = sdk.api.workspace
    await sdk.ok(
        workspace.updateAdvancedWebhookConfig, UpdateAdvancedWebhookConfigRequest(isEnabled=True)
    )
    assert await sdk.ok(workspace.getAdvancedWebhookConfig, GetAdvancedWebhookConfigRequest())
    endpoint = await sdk.ok(
        workspace.createAdvancedWebhookEndpoint,
        CreateAdvancedWebhookEndpointRequest(
            url="https://hooks.example.com/velt", filterTypes=["comment.add"], uid="billing"
        ),
    )
    await sdk.ok(
        workspace.updateAdvancedWebhookEndpoint,
        UpdateAdvancedWebhookEndpointRequest(endpointId=endpoint["id"], description="Billing"),
    )
    listed = await sdk.ok(
        workspace.getAdvancedWebhookEndpoints, GetAdvancedWebhookEndpointsRequest(limit=10)
    )
    assert endpoint["id"] in str(listed)
    secret = await sdk.ok(
        workspace.getAdvancedWebhookEndpointSecret,
        GetAdvancedWebhookEndpointSecretRequest(endpointId=endpoint["id"]),
    )
    assert secret["secret"].startswith("whsec_")
    await sdk.ok(
        workspace.deleteAdvancedWebhookEndpoint,
        DeleteAdvancedWebhookEndpointRequest(endpointId="billing"),
    )

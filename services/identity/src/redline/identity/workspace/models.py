"""Workspaces, API keys and auth tokens: request and response Structs."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from redline.identity.fields import (
    Domain,
    Email,
    Id,
    KeyType,
    Name,
    PageSize,
    PageToken,
    Request,
    Url,
)
from redline.identity.key_settings.models import EmailServiceConfig, WebhookServiceConfig


class Owner(msgspec.Struct):
    email: str
    id: str
    name: str
    avatar: str


class ApiKeySummary(msgspec.Struct):
    apiKeyName: str
    id: str
    type: str


class Workspace(msgspec.Struct):
    id: str
    name: str
    owner: Owner
    authToken: str
    apiKeyList: dict[str, ApiKeySummary]


class CreateWorkspace(Request):
    ownerEmail: Email
    name: Name | None = None
    workspaceName: Name | None = None
    ownerName: Name | None = None
    avatar: Url | None = None
    # The hosted product's window for verifying the owner's email. Redline verifies no email when
    # a workspace is made (the operator decides who may make one), so it is checked and unused.
    expiresInMs: Annotated[int, Meta(ge=60_000, le=172_800_000)] | None = None


class CreateApiKey(Request):
    apiKeyName: Name = ""
    type: KeyType = "testing"
    allowedDomains: Annotated[list[Domain], Meta(max_length=100)] = msgspec.field(
        default_factory=list
    )
    createAuthToken: bool = True
    useWebhookService: bool | None = None
    webhookServiceConfig: WebhookServiceConfig | None = None
    # The reference's owner of the key. The workspace's owner owns every key of it here, so the
    # address is checked and not kept.
    ownerEmail: Email | None = None
    # Adds `localhost` to the allowed domains.
    addLocalHostToAllowedDomains: bool = False
    # The key's first email settings, as emailconfig/update takes them (enabling seeds the
    # default triggers, so `setDefaultEmailTriggers` is what always happens).
    useEmailService: bool | None = None
    emailServiceConfig: EmailServiceConfig | None = None
    setDefaultEmailTriggers: bool | None = None
    # The key's first app settings, as apikeyconfig/update takes them.
    requireAutoOrgUser: bool | None = None
    enablePrivateComments: bool | None = None
    # The in-app notification service's first switch (and its default triggers).
    useNotificationService: bool | None = None
    setDefaultNotificationTriggers: bool | None = None
    # The hosted product's plans, regions and platforms: one self-hosted install has one of each,
    # so these are checked and unused.
    persistenceDBRegion: Name | None = None
    realtimeDBRegion: Name | None = None
    planInfo: Annotated[dict[str, Any], Meta(max_length=64)] | None = None
    customPlanInfo: bool | None = None
    customPlanInfoData: Annotated[dict[str, Any], Meta(max_length=64)] | None = None
    isSuperWorkspace: bool | None = None
    platform: Name | None = None
    # The workspace the key is made in: the caller's own (another is refused).
    workspaceId: Id | None = None


class CreatedApiKey(msgspec.Struct, omit_defaults=True):
    apiKey: str
    authToken: str | None = None


class ListApiKeys(Request):
    pageSize: PageSize = 100
    pageToken: PageToken | None = None
    # Only these of the workspace's keys (the reference's filter; unknown ids match nothing).
    apiKeys: Annotated[list[Id], Meta(max_length=100)] | None = None


class UpdateApiKey(Request):
    apiKey: Id
    apiKeyName: Name


class ApiKeyRef(Request):
    apiKey: Id


class AuthToken(msgspec.Struct):
    token: str
    name: str
    domains: list[str]


class AuthTokens(msgspec.Struct):
    apiKey: str
    authTokens: list[AuthToken]


class ResetAuthToken(msgspec.Struct):
    apiKey: str
    newAuthToken: AuthToken


class CopyApiKey(Request):
    sourceApiKey: Id
    targetApiKey: Id


class CopiedApiKey(msgspec.Struct):
    sourceApiKey: str
    targetApiKey: str


class WorkspaceAuthToken(msgspec.Struct):
    workspaceId: str
    authToken: str

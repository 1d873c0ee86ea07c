"""Workspaces, API keys and auth tokens: request and response Structs."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from redline.identity.config.models import WebhookServiceConfig
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

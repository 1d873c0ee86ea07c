"""Configuration across areas: tenancy, credentials, events and the config RPC."""

from __future__ import annotations

import nats
import pytest

from redline.bus import rpc
from redline.envelope.errors import NotFound
from redline.proto.events import (
    ActivityConfigUpdated,
    AdvancedWebhookConfigUpdated,
    DomainsUpdated,
    WebhookConfigUpdated,
)
from redline.proto.rpc import ApiKeyConfig, ConfigGetRequest
from redline.proto.subjects import RPC_CONFIG_GET
from redline.testing.api import ApiClient, assert_failure
from tests.api.config_support import (
    DEFAULT_ADVANCED_CONFIG,
    DEFAULT_WEBHOOK_CONFIG,
    SEEDED_ACTIVITY_TRIGGERS,
    SEEDED_WEBHOOK_TRIGGERS,
    call,
    config_events,
    domains_of,
    ok,
    published_subjects,
)

# tenancy -----------------------------------------------------------------------------------------


async def test_one_workspace_never_sees_or_changes_another_ones_config(api: ApiClient) -> None:
    a = await api.create_workspace("tenant-a@example.com")
    b = await api.create_workspace("tenant-b@example.com")
    await ok(api, a, "/v2/workspace/domains/add", {"domains": ["a.example.com"]})
    await ok(
        api,
        a,
        "/v2/workspace/webhookconfig/update",
        {"useWebhookService": True, "webhookServiceConfig": {"authToken": "a-secret"}},
    )
    await ok(
        api,
        a,
        "/v2/workspace/activityconfig/update",
        {"activityServiceConfig": {"isEnabled": True}},
    )
    await ok(api, a, "/v2/workspace/advancedwebhookconfig/update", {"isEnabled": True})
    a_before = [
        await ok(api, a, path)
        for path in (
            "/v2/workspace/webhookconfig/get",
            "/v2/workspace/activityconfig/get",
            "/v2/workspace/advancedwebhookconfig/get",
        )
    ]

    assert await domains_of(api, b) == []
    assert await ok(api, b, "/v2/workspace/webhookconfig/get") == DEFAULT_WEBHOOK_CONFIG
    assert await ok(api, b, "/v2/workspace/activityconfig/get") == {
        "activityServiceConfig": {"isEnabled": False}
    }
    assert await ok(api, b, "/v2/workspace/advancedwebhookconfig/get") == DEFAULT_ADVANCED_CONFIG
    await ok(api, b, "/v2/workspace/domains/add", {"domains": ["a.example.com"]})
    await ok(api, b, "/v2/workspace/domains/delete", {"domains": ["a.example.com"]})
    await ok(api, b, "/v2/workspace/webhookconfig/update", {"useWebhookService": False})
    assert await domains_of(api, a) == ["a.example.com"]
    assert [
        await ok(api, a, path)
        for path in (
            "/v2/workspace/webhookconfig/get",
            "/v2/workspace/activityconfig/get",
            "/v2/workspace/advancedwebhookconfig/get",
        )
    ] == a_before


async def test_config_endpoints_need_api_key_credentials(api: ApiClient) -> None:
    ws = await api.create_workspace("config-auth@example.com")

    for path in (
        "/v2/workspace/domains/get",
        "/v2/workspace/webhookconfig/update",
        "/v2/workspace/activityconfig/get",
    ):
        wrong = await api.post(
            path,
            {},
            headers={"x-redline-api-key": ws.api_key, "x-redline-auth-token": "wrong"},
        )
        workspace_level = await api.post(path, {}, headers=ws.workspace_headers)
        assert_failure(wrong, 401, "UNAUTHENTICATED")
        assert_failure(workspace_level, 400, "INVALID_ARGUMENT")


# events and RPC ----------------------------------------------------------------------------------


async def test_every_config_change_publishes_an_event_with_the_whole_config(
    api: ApiClient, database_url: str, nats_url: str, public_key_pem: str
) -> None:
    ws = await api.create_workspace("config-events@example.com")
    webhook = await ok(
        api,
        ws,
        "/v2/workspace/webhookconfig/update",
        {"useWebhookService": True, "webhookServiceConfig": {"authToken": "t"}},
    )
    activity = await ok(
        api,
        ws,
        "/v2/workspace/activityconfig/update",
        {"activityServiceConfig": {"isEnabled": True}},
    )
    advanced = await ok(
        api,
        ws,
        "/v2/workspace/advancedwebhookconfig/update",
        {"isEnabled": True, "encryptData": True, "publicKey": public_key_pem},
    )
    await ok(api, ws, "/v2/workspace/domains/add", {"domains": ["a.example.com", "b.example.com"]})
    await ok(api, ws, "/v2/workspace/domains/delete", {"domains": ["a.example.com"]})

    events = await config_events(database_url, nats_url, ws.api_key)

    assert [type(e) for e in events] == [
        WebhookConfigUpdated,
        ActivityConfigUpdated,
        AdvancedWebhookConfigUpdated,
        DomainsUpdated,
        DomainsUpdated,
    ]
    assert all(e.workspaceId == ws.id for e in events)
    webhook_event, activity_event, advanced_event, added, removed = events
    assert isinstance(webhook_event, WebhookConfigUpdated)
    assert webhook_event.config.useWebhookService is True
    # The receiver's secret stays out of the stream; notify reads it over rpc.identity.config.get.
    assert webhook_event.config.webhookServiceConfig.authToken == ""
    assert webhook_event.config.webhookServiceConfig.triggers == SEEDED_WEBHOOK_TRIGGERS
    assert webhook["webhookServiceConfig"]["triggers"] == SEEDED_WEBHOOK_TRIGGERS
    assert isinstance(activity_event, ActivityConfigUpdated)
    assert activity_event.config.enabledTime == activity["activityServiceConfig"]["enabledTime"]
    assert activity_event.config.triggers == SEEDED_ACTIVITY_TRIGGERS
    assert isinstance(advanced_event, AdvancedWebhookConfigUpdated)
    assert advanced_event.config.publicKey == advanced["publicKey"]
    assert isinstance(added, DomainsUpdated)
    assert isinstance(removed, DomainsUpdated)
    assert sorted(added.domains) == ["a.example.com", "b.example.com"]
    assert added.added == ["a.example.com", "b.example.com"]
    assert removed.domains == ["b.example.com"]
    assert removed.removed == ["a.example.com"]


async def test_rejected_updates_write_no_event(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("config-noevent@example.com")
    before = await published_subjects(database_url, nats_url)

    rejected = [
        await call(api, ws, "/v2/workspace/advancedwebhookconfig/update", {"encodeData": True}),
        await call(api, ws, "/v2/workspace/activityconfig/update", {"activityServiceConfig": {}}),
        await call(
            api,
            ws,
            "/v2/workspace/webhookconfig/update",
            {"webhookServiceConfig": {"rawNotificationUrl": "nope"}},
        ),
    ]
    accepted = await call(
        api,
        ws,
        "/v2/workspace/activityconfig/update",
        {"activityServiceConfig": {"isEnabled": True}},
    )

    assert [r.status for r in rejected] == [400, 400, 400]
    assert accepted.status == 200, accepted.body
    after = await published_subjects(database_url, nats_url)
    assert after[len(before) :] == ["evt.identity.config.activity_updated"]


async def test_apikey_create_with_webhook_config_and_domains_writes_config_events(
    api: ApiClient, database_url: str, nats_url: str
) -> None:
    ws = await api.create_workspace("config-create-events@example.com")
    created = await api.post(
        "/v2/workspace/apikey/create",
        {
            "allowedDomains": ["https://app.example.com"],
            "useWebhookService": True,
        },
        headers=ws.workspace_headers,
    )
    assert created.status == 200, created.body

    events = await config_events(database_url, nats_url, created.data["apiKey"])

    assert {type(e) for e in events} == {DomainsUpdated, WebhookConfigUpdated}
    for event in events:
        if isinstance(event, DomainsUpdated):
            assert event.domains == ["app.example.com"]
        if isinstance(event, WebhookConfigUpdated):
            assert event.config.useWebhookService is True
            assert event.config.webhookServiceConfig.triggers == SEEDED_WEBHOOK_TRIGGERS


async def test_other_services_read_the_current_config_over_rpc(
    api: ApiClient, nats_url: str
) -> None:
    ws = await api.create_workspace("config-rpc@example.com")
    other = await api.create_workspace("config-rpc-other@example.com")
    webhook = await ok(
        api,
        ws,
        "/v2/workspace/webhookconfig/update",
        {
            "useWebhookService": True,
            "webhookServiceConfig": {
                "processedNotificationUrl": "https://hooks.example.com/p",
                "authToken": "receiver-secret",
            },
        },
    )
    activity = await ok(
        api,
        ws,
        "/v2/workspace/activityconfig/update",
        {"activityServiceConfig": {"isEnabled": True}},
    )
    nc = await nats.connect(nats_url)
    try:
        current = await rpc.call(nc, RPC_CONFIG_GET, ConfigGetRequest(ws.api_key), ApiKeyConfig)
        untouched = await rpc.call(
            nc, RPC_CONFIG_GET, ConfigGetRequest(other.api_key), ApiKeyConfig
        )
        with pytest.raises(NotFound):
            await rpc.call(nc, RPC_CONFIG_GET, ConfigGetRequest("no-such-key"), ApiKeyConfig)
    finally:
        await nc.drain()

    assert current.workspaceId == ws.id
    assert current.apiKey == ws.api_key
    assert current.webhook.useWebhookService is True
    assert (
        current.webhook.webhookServiceConfig.processedNotificationUrl
        == (webhook["webhookServiceConfig"]["processedNotificationUrl"])
    )
    assert current.webhook.webhookServiceConfig.triggers == SEEDED_WEBHOOK_TRIGGERS
    # Unlike the events, the RPC answers the receiver's secret: notify needs it to deliver.
    assert current.webhook.webhookServiceConfig.authToken == "receiver-secret"
    assert current.activity.isEnabled is True
    assert current.activity.immutable is True
    assert current.activity.enabledTime == activity["activityServiceConfig"]["enabledTime"]
    assert current.advancedWebhook.isEnabled is False
    assert untouched.workspaceId == other.id
    assert untouched.webhook.useWebhookService is False
    assert untouched.webhook.webhookServiceConfig.triggers == {}
    assert untouched.activity.isEnabled is False
    assert untouched.activity.enabledTime is None

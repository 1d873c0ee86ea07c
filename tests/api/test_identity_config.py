"""Per-API-key configuration over HTTP: allowed domains, basic and advanced webhooks, activity
logs; the config events each change writes, and the current configuration over NATS RPC."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import nats
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from redline.bus import rpc
from redline.envelope.errors import NotFound
from redline.proto.events import (
    ActivityConfigUpdated,
    AdvancedWebhookConfigUpdated,
    DomainsUpdated,
    Event,
    WebhookConfigUpdated,
    decode_event,
    now_ms,
)
from redline.proto.rpc import ApiKeyConfig, ConfigGetRequest
from redline.proto.subjects import RPC_CONFIG_GET, STREAM
from redline.testing.api import ApiClient, Response, Workspace

STANDARD_TRIGGERS = {
    "comment_annotation.add",
    "comment.add",
    "comment.update",
    "comment.delete",
    "comment_annotation.status_change",
    "comment_annotation.assign",
    "comment_annotation.priority_change",
    "comment.reaction_add",
    "comment.reaction_delete",
}
SUGGESTION_TRIGGERS = {
    "comment_annotation.suggestion_accept",
    "comment_annotation.suggestion_reject",
}
SEEDED_WEBHOOK_TRIGGERS = {
    **dict.fromkeys(STANDARD_TRIGGERS, True),
    **dict.fromkeys(SUGGESTION_TRIGGERS, False),
    "huddle.created": True,
    "huddle.joined": True,
    "crdt.update_data": False,
    "recorder.recording_done": False,
    "recorder.transcription_done": False,
}
SEEDED_ACTIVITY_TRIGGERS = dict.fromkeys(STANDARD_TRIGGERS | SUGGESTION_TRIGGERS, True)
DEFAULT_WEBHOOK_CONFIG = {
    "useWebhookService": False,
    "webhookServiceConfig": {
        "authToken": "",
        "rawNotificationUrl": "",
        "processedNotificationUrl": "",
        "encodeData": False,
        "encryptData": False,
        "publicKey": "",
        "triggers": {},
        "enableDataProtection": False,
    },
}
DEFAULT_ADVANCED_CONFIG = {
    "isEnabled": False,
    "encryptData": False,
    "encodeData": False,
    "publicKey": "",
    "enableDataProtection": False,
}


@pytest.fixture(scope="module")
def public_key_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def assert_failure(response: Response, http_status: int, code: str) -> dict[str, Any]:
    assert response.status == http_status, response.body
    assert set(response.body) == {"error"}, response.body
    error: dict[str, Any] = response.error
    assert error["status"] == code
    assert isinstance(error["message"], str)
    assert error["message"]
    return error


def issue_paths(error: dict[str, Any]) -> list[str]:
    return [issue["path"] for issue in error["details"]["issues"]]


async def call(api: ApiClient, ws: Workspace, path: str, data: Any = None) -> Response:
    return await api.post(path, data or {}, headers=ws.key_headers)


async def ok(api: ApiClient, ws: Workspace, path: str, data: Any = None) -> Any:
    response = await call(api, ws, path, data)
    assert response.status == 200, response.body
    assert response.result["status"] == "success"
    return response.data


async def domains_of(api: ApiClient, ws: Workspace) -> list[str]:
    data = await ok(api, ws, "/v2/workspace/domains/get")
    assert set(data) == {"domains"}
    domains: list[str] = data["domains"]
    return domains


async def config_events(nats_url: str, api_key: str, count: int) -> list[Event]:
    """The config events of `api_key` on the EVENTS stream, once `count` of them arrived."""
    nc = await nats.connect(nats_url)
    try:
        subscription = await nc.jetstream().pull_subscribe("evt.identity.config.>", stream=STREAM)
        found: list[Event] = []
        deadline = asyncio.get_running_loop().time() + 15
        while len(found) < count and asyncio.get_running_loop().time() < deadline:
            try:
                messages = await subscription.fetch(batch=100, timeout=0.5)
            except TimeoutError:
                continue
            for message in messages:
                await message.ack()
                event = decode_event(message.data)
                if getattr(event, "apiKey", None) == api_key:
                    found.append(event)
        return found
    finally:
        await nc.drain()


async def outbox_types(database_url: str) -> list[str]:
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch("SELECT subject FROM identity.outbox ORDER BY seq")
    finally:
        await conn.close()
    return [r["subject"] for r in rows]


# allowed domains ---------------------------------------------------------------------------------


async def test_added_domains_are_normalised_to_their_host(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-add@example.com")

    added = await ok(
        api,
        ws,
        "/v2/workspace/domains/add",
        {
            "domains": [
                "https://App.Example.com/",
                "https://*.Firebase.com",
                "http://localhost:3000/app?x=1",
                "app.example.com",
            ]
        },
    )

    assert added == {"domainsAdded": ["app.example.com", "*.firebase.com", "localhost"]}
    assert sorted(await domains_of(api, ws)) == ["*.firebase.com", "app.example.com", "localhost"]


async def test_adding_existing_domains_is_internal_with_details_and_keeps_the_new_ones(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("domains-partial@example.com")
    await ok(api, ws, "/v2/workspace/domains/add", {"domains": ["a.example.com"]})

    response = await call(
        api,
        ws,
        "/v2/workspace/domains/add",
        {"domains": ["https://A.example.com/path", "b.example.com", "c.example.com"]},
    )

    error = assert_failure(response, 500, "INTERNAL")
    assert "added" in error["message"]
    assert "skipped" in error["message"]
    assert error["details"] == {
        "domainsAdded": ["b.example.com", "c.example.com"],
        "skippedDomains": ["a.example.com"],
    }
    assert sorted(await domains_of(api, ws)) == ["a.example.com", "b.example.com", "c.example.com"]


async def test_adding_only_existing_domains_adds_nothing_and_says_so(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-allskip@example.com")
    await ok(api, ws, "/v2/workspace/domains/add", {"domains": ["a.example.com"]})

    response = await call(api, ws, "/v2/workspace/domains/add", {"domains": ["a.example.com"]})

    error = assert_failure(response, 500, "INTERNAL")
    assert error["details"] == {"domainsAdded": [], "skippedDomains": ["a.example.com"]}
    assert await domains_of(api, ws) == ["a.example.com"]


async def test_invalid_domains_name_their_position_and_nothing_is_added(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-invalid@example.com")

    response = await call(
        api,
        ws,
        "/v2/workspace/domains/add",
        {"domains": ["ok.example.com", "ftp://files.example.com", "https://", "*"]},
    )

    error = assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(error) == ["data.domains[1]", "data.domains[2]", "data.domains[3]"]
    assert await domains_of(api, ws) == []


async def test_domains_add_needs_a_non_empty_list(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-empty@example.com")

    missing = await call(api, ws, "/v2/workspace/domains/add", {})
    empty = await call(api, ws, "/v2/workspace/domains/add", {"domains": []})

    assert issue_paths(assert_failure(missing, 400, "INVALID_ARGUMENT")) == ["data.domains"]
    assert issue_paths(assert_failure(empty, 400, "INVALID_ARGUMENT")) == ["data.domains"]


async def test_deleting_domains_removes_them_and_reports_unknown_ones_as_skipped(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("domains-delete@example.com")
    await ok(
        api, ws, "/v2/workspace/domains/add", {"domains": ["a.example.com", "*.b.example.com"]}
    )

    deleted = await ok(
        api,
        ws,
        "/v2/workspace/domains/delete",
        {"domains": ["https://A.example.com/x", "nothere.example.com"]},
    )

    assert deleted == {
        "domainsDeleted": ["a.example.com"],
        "skippedDomains": ["nothere.example.com"],
    }
    assert await domains_of(api, ws) == ["*.b.example.com"]
    bad = await call(api, ws, "/v2/workspace/domains/delete", {"domains": ["bad domain"]})
    assert issue_paths(assert_failure(bad, 400, "INVALID_ARGUMENT")) == ["data.domains[0]"]


async def test_apikey_create_normalises_allowed_domains_the_same_way(api: ApiClient) -> None:
    ws = await api.create_workspace("domains-create@example.com")

    created = await api.post(
        "/v2/workspace/apikey/create",
        {"allowedDomains": ["https://App.Example.com:8443/x", "app.example.com", "*.Example.org"]},
        headers=ws.workspace_headers,
    )
    assert created.status == 200, created.body
    key = Workspace(ws.id, ws.token, created.data["apiKey"], created.data["authToken"], {})
    invalid = await api.post(
        "/v2/workspace/apikey/create",
        {"allowedDomains": ["ok.example.com", "http://"]},
        headers=ws.workspace_headers,
    )

    assert sorted(await domains_of(api, key)) == ["*.example.org", "app.example.com"]
    assert issue_paths(assert_failure(invalid, 400, "INVALID_ARGUMENT")) == [
        "data.allowedDomains[1]"
    ]


# basic webhooks ----------------------------------------------------------------------------------


async def test_webhook_config_of_a_new_key_is_all_defaults(api: ApiClient) -> None:
    ws = await api.create_workspace("webhook-defaults@example.com")

    assert await ok(api, ws, "/v2/workspace/webhookconfig/get") == DEFAULT_WEBHOOK_CONFIG


async def test_first_enable_seeds_triggers_with_suggestions_off(api: ApiClient) -> None:
    ws = await api.create_workspace("webhook-seed@example.com")

    updated = await ok(
        api,
        ws,
        "/v2/workspace/webhookconfig/update",
        {
            "useWebhookService": True,
            "webhookServiceConfig": {"rawNotificationUrl": "https://hooks.example.com/raw"},
        },
    )

    assert updated == {
        "useWebhookService": True,
        "webhookServiceConfig": {
            **DEFAULT_WEBHOOK_CONFIG["webhookServiceConfig"],
            "rawNotificationUrl": "https://hooks.example.com/raw",
            "triggers": SEEDED_WEBHOOK_TRIGGERS,
        },
    }
    assert await ok(api, ws, "/v2/workspace/webhookconfig/get") == updated


async def test_webhook_updates_deep_merge_and_suggestions_turn_on_only_when_set(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("webhook-merge@example.com")
    await ok(
        api,
        ws,
        "/v2/workspace/webhookconfig/update",
        {
            "useWebhookService": True,
            "webhookServiceConfig": {
                "rawNotificationUrl": "https://hooks.example.com/raw",
                "authToken": "receiver-secret",
            },
        },
    )

    updated = await ok(
        api,
        ws,
        "/v2/workspace/webhookconfig/update",
        {
            "webhookServiceConfig": {
                "processedNotificationUrl": "https://hooks.example.com/processed",
                "triggers": {"comment_annotation.suggestion_accept": True, "comment.add": False},
                "encodeData": True,
            }
        },
    )

    settings = updated["webhookServiceConfig"]
    assert updated["useWebhookService"] is True
    assert settings["rawNotificationUrl"] == "https://hooks.example.com/raw"
    assert settings["authToken"] == "receiver-secret"
    assert settings["processedNotificationUrl"] == "https://hooks.example.com/processed"
    assert settings["encodeData"] is True
    assert settings["triggers"] == {
        **SEEDED_WEBHOOK_TRIGGERS,
        "comment_annotation.suggestion_accept": True,
        "comment.add": False,
    }
    assert settings["triggers"]["comment_annotation.suggestion_reject"] is False


async def test_webhook_update_needs_one_of_its_two_fields(api: ApiClient) -> None:
    ws = await api.create_workspace("webhook-empty@example.com")

    response = await call(api, ws, "/v2/workspace/webhookconfig/update", {})
    unknown = await call(api, ws, "/v2/workspace/webhookconfig/update", {"enabled": True})

    assert_failure(response, 400, "INVALID_ARGUMENT")
    assert issue_paths(assert_failure(unknown, 400, "INVALID_ARGUMENT")) == ["data.enabled"]


async def test_invalid_webhook_urls_are_rejected_naming_the_field(api: ApiClient) -> None:
    ws = await api.create_workspace("webhook-url@example.com")

    for url in ("ftp://hooks.example.com/x", "hooks.example.com/raw", "https://"):
        response = await call(
            api,
            ws,
            "/v2/workspace/webhookconfig/update",
            {"useWebhookService": True, "webhookServiceConfig": {"rawNotificationUrl": url}},
        )
        error = assert_failure(response, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == ["data.webhookServiceConfig.rawNotificationUrl"], url
    too_long = await call(
        api,
        ws,
        "/v2/workspace/webhookconfig/update",
        {
            "webhookServiceConfig": {
                "processedNotificationUrl": "https://x.example.com/" + "a" * 2100
            }
        },
    )
    assert issue_paths(assert_failure(too_long, 400, "INVALID_ARGUMENT")) == [
        "data.webhookServiceConfig.processedNotificationUrl"
    ]
    assert await ok(api, ws, "/v2/workspace/webhookconfig/get") == DEFAULT_WEBHOOK_CONFIG


async def test_encryption_needs_a_valid_rsa_public_key(api: ApiClient, public_key_pem: str) -> None:
    ws = await api.create_workspace("webhook-key@example.com")
    path = "/v2/workspace/webhookconfig/update"

    without_key = await call(api, ws, path, {"webhookServiceConfig": {"encryptData": True}})
    bad_key = await call(
        api,
        ws,
        path,
        {"webhookServiceConfig": {"encryptData": True, "publicKey": "bm90IGEga2V5"}},
    )
    good = await ok(
        api,
        ws,
        path,
        {"webhookServiceConfig": {"encryptData": True, "publicKey": public_key_pem}},
    )
    clearing = await call(api, ws, path, {"webhookServiceConfig": {"publicKey": ""}})

    for response in (without_key, bad_key, clearing):
        error = assert_failure(response, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == ["data.webhookServiceConfig.publicKey"]
    assert good["webhookServiceConfig"]["publicKey"] == public_key_pem
    assert good["webhookServiceConfig"]["encryptData"] is True


async def test_webhook_config_given_at_apikey_create_is_the_initial_config(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("webhook-create@example.com")

    created = await api.post(
        "/v2/workspace/apikey/create",
        {
            "apiKeyName": "Hooks",
            "useWebhookService": True,
            "webhookServiceConfig": {
                "rawNotificationUrl": "https://hooks.example.com/raw",
                "authToken": "from-create",
                "triggers": {"comment.add": False},
            },
        },
        headers=ws.workspace_headers,
    )
    assert created.status == 200, created.body
    key = Workspace(ws.id, ws.token, created.data["apiKey"], created.data["authToken"], {})
    bad = await api.post(
        "/v2/workspace/apikey/create",
        {"webhookServiceConfig": {"processedNotificationUrl": "mailto:x@example.com"}},
        headers=ws.workspace_headers,
    )

    config = await ok(api, key, "/v2/workspace/webhookconfig/get")
    assert config == {
        "useWebhookService": True,
        "webhookServiceConfig": {
            **DEFAULT_WEBHOOK_CONFIG["webhookServiceConfig"],
            "rawNotificationUrl": "https://hooks.example.com/raw",
            "authToken": "from-create",
            "triggers": {**SEEDED_WEBHOOK_TRIGGERS, "comment.add": False},
        },
    }
    assert await ok(api, ws, "/v2/workspace/webhookconfig/get") == DEFAULT_WEBHOOK_CONFIG
    assert issue_paths(assert_failure(bad, 400, "INVALID_ARGUMENT")) == [
        "data.webhookServiceConfig.processedNotificationUrl"
    ]


# advanced webhooks -------------------------------------------------------------------------------


async def test_advanced_webhook_config_defaults_and_first_update_must_enable(
    api: ApiClient, public_key_pem: str
) -> None:
    ws = await api.create_workspace("advanced@example.com")
    path = "/v2/workspace/advancedwebhookconfig/update"

    assert await ok(api, ws, "/v2/workspace/advancedwebhookconfig/get") == DEFAULT_ADVANCED_CONFIG
    not_enabled = await call(api, ws, path, {"encodeData": True})
    assert_failure(not_enabled, 400, "FAILED_PRECONDITION")
    assert await ok(api, ws, "/v2/workspace/advancedwebhookconfig/get") == DEFAULT_ADVANCED_CONFIG

    enabled = await ok(api, ws, path, {"isEnabled": True, "encodeData": True})
    merged = await ok(api, ws, path, {"enableDataProtection": True})
    encrypted = await ok(api, ws, path, {"encryptData": True, "publicKey": public_key_pem})
    no_key = await call(api, ws, path, {"publicKey": ""})
    empty = await call(api, ws, path, {})

    assert enabled == {**DEFAULT_ADVANCED_CONFIG, "isEnabled": True, "encodeData": True}
    assert merged == {**enabled, "enableDataProtection": True}
    assert encrypted == {**merged, "encryptData": True, "publicKey": public_key_pem}
    assert issue_paths(assert_failure(no_key, 400, "INVALID_ARGUMENT")) == ["data.publicKey"]
    assert_failure(empty, 400, "INVALID_ARGUMENT")
    assert await ok(api, ws, "/v2/workspace/advancedwebhookconfig/get") == encrypted


# activity logs -----------------------------------------------------------------------------------


async def test_activity_config_of_a_new_key_is_disabled(api: ApiClient) -> None:
    ws = await api.create_workspace("activity-default@example.com")

    data = await ok(api, ws, "/v2/workspace/activityconfig/get")

    assert data == {"activityServiceConfig": {"isEnabled": False}}


async def test_first_activity_enable_seeds_defaults_and_later_updates_keep_enabled_time(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("activity-seed@example.com")
    path = "/v2/workspace/activityconfig/update"
    before = now_ms()

    first = await ok(api, ws, path, {"activityServiceConfig": {"isEnabled": True}})

    config = first["activityServiceConfig"]
    assert config["isEnabled"] is True
    assert config["immutable"] is True
    assert config["triggers"] == SEEDED_ACTIVITY_TRIGGERS
    assert before <= config["enabledTime"] <= now_ms()

    tuned = await ok(
        api, ws, path, {"activityServiceConfig": {"triggers": {"comment.delete": False}}}
    )
    disabled = await ok(api, ws, path, {"activityServiceConfig": {"isEnabled": False}})
    again = await ok(api, ws, path, {"activityServiceConfig": {"isEnabled": True}})

    assert tuned["activityServiceConfig"] == {
        **config,
        "triggers": {**SEEDED_ACTIVITY_TRIGGERS, "comment.delete": False},
    }
    assert disabled["activityServiceConfig"]["isEnabled"] is False
    assert disabled["activityServiceConfig"]["enabledTime"] == config["enabledTime"]
    assert again["activityServiceConfig"] == {**tuned["activityServiceConfig"], "isEnabled": True}
    assert await ok(api, ws, "/v2/workspace/activityconfig/get") == again


async def test_activity_values_sent_on_first_enable_win(api: ApiClient) -> None:
    ws = await api.create_workspace("activity-sent@example.com")

    data = await ok(
        api,
        ws,
        "/v2/workspace/activityconfig/update",
        {
            "activityServiceConfig": {
                "isEnabled": True,
                "enabledTime": 1_700_000_000_000,
                "immutable": False,
                "triggers": {"comment_annotation.suggestion_reject": False},
            }
        },
    )

    assert data["activityServiceConfig"] == {
        "isEnabled": True,
        "enabledTime": 1_700_000_000_000,
        "immutable": False,
        "triggers": {**SEEDED_ACTIVITY_TRIGGERS, "comment_annotation.suggestion_reject": False},
    }


async def test_activity_update_without_fields_is_invalid(api: ApiClient) -> None:
    ws = await api.create_workspace("activity-empty@example.com")
    path = "/v2/workspace/activityconfig/update"

    empty = await call(api, ws, path, {"activityServiceConfig": {}})
    missing = await call(api, ws, path, {})
    negative = await call(api, ws, path, {"activityServiceConfig": {"enabledTime": -1}})

    error = assert_failure(empty, 400, "INVALID_ARGUMENT")
    assert "at least one field" in error["message"]
    assert issue_paths(error) == ["data.activityServiceConfig"]
    assert issue_paths(assert_failure(missing, 400, "INVALID_ARGUMENT")) == [
        "data.activityServiceConfig"
    ]
    assert issue_paths(assert_failure(negative, 400, "INVALID_ARGUMENT")) == [
        "data.activityServiceConfig.enabledTime"
    ]
    assert await ok(api, ws, "/v2/workspace/activityconfig/get") == {
        "activityServiceConfig": {"isEnabled": False}
    }


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
    api: ApiClient, nats_url: str, public_key_pem: str
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

    events = await config_events(nats_url, ws.api_key, 5)

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


async def test_rejected_updates_write_no_event(api: ApiClient, database_url: str) -> None:
    ws = await api.create_workspace("config-noevent@example.com")
    before = await outbox_types(database_url)

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
    after = await outbox_types(database_url)
    assert after[len(before) :] == ["evt.identity.config.activity_updated"]


async def test_apikey_create_with_webhook_config_and_domains_writes_config_events(
    api: ApiClient, nats_url: str
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

    events = await config_events(nats_url, created.data["apiKey"], 2)

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

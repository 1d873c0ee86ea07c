"""Basic and advanced webhook configuration: defaults, seeding, deep merge, validation."""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from redline.testing.api import ApiClient, StartApi, Workspace, assert_failure, issue_paths
from tests.api.config_support import (
    DEFAULT_ADVANCED_CONFIG,
    DEFAULT_WEBHOOK_CONFIG,
    SEEDED_WEBHOOK_TRIGGERS,
    call,
    ok,
)

EVEN_MODULUS_KEY = (
    rsa.RSAPublicNumbers(65537, 1 << 2048)
    .public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode()
)

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


async def test_targets_the_address_guard_refuses_are_rejected_when_saved(
    start_api: StartApi,
) -> None:
    api = await start_api(webhook_allow=["10.1.2.3"])
    ws = await api.create_workspace("webhook-guard@example.com")

    for url in (
        "https://169.254.169.254/latest/meta-data",
        "https://localhost:8443/hook",
        "https://0x7f000001/",
        "http://hooks.example.com/raw",
    ):
        response = await call(
            api,
            ws,
            "/v2/workspace/webhookconfig/update",
            {"useWebhookService": True, "webhookServiceConfig": {"rawNotificationUrl": url}},
        )
        error = assert_failure(response, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == ["data.webhookServiceConfig.rawNotificationUrl"], url
        assert "not a webhook target this deployment sends to" in str(error["details"]), url
    allowed = await ok(
        api,
        ws,
        "/v2/workspace/webhookconfig/update",
        {"webhookServiceConfig": {"rawNotificationUrl": "http://10.1.2.3:8080/in"}},
    )
    assert allowed["webhookServiceConfig"]["rawNotificationUrl"] == "http://10.1.2.3:8080/in"
    assert await ok(api, ws, "/v2/workspace/webhookconfig/get") == allowed


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
    # An RSA key that parses but cannot encrypt (its modulus is even).
    cannot_encrypt = await call(
        api,
        ws,
        path,
        {"webhookServiceConfig": {"encryptData": True, "publicKey": EVEN_MODULUS_KEY}},
    )
    good = await ok(
        api,
        ws,
        path,
        {"webhookServiceConfig": {"encryptData": True, "publicKey": public_key_pem}},
    )
    clearing = await call(api, ws, path, {"webhookServiceConfig": {"publicKey": ""}})

    for response in (without_key, bad_key, cannot_encrypt, clearing):
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


async def test_an_auth_token_must_be_printable_ascii(api: ApiClient) -> None:
    ws = await api.create_workspace("webhook-token@example.com")
    path = "/v2/workspace/webhookconfig/update"
    before = await ok(api, ws, "/v2/workspace/webhookconfig/get")

    # Sent as a header value: a line break would end the header.
    for token in ("a\r\nX-Injected: 1", "a\nb", "\x01", "\x7f", "jeton-é"):
        response = await call(api, ws, path, {"webhookServiceConfig": {"authToken": token}})

        error = assert_failure(response, 400, "INVALID_ARGUMENT")
        assert issue_paths(error) == ["data.webhookServiceConfig.authToken"]
    assert await ok(api, ws, "/v2/workspace/webhookconfig/get") == before
    saved = await ok(api, ws, path, {"webhookServiceConfig": {"authToken": "Tok3n with spaces~!"}})
    assert saved["webhookServiceConfig"]["authToken"] == "Tok3n with spaces~!"

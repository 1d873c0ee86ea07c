"""Validation of per-API-key configuration: webhook target URLs (the address guard's check
without the network), encryption keys and trigger bounds."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from redline.envelope.errors import InvalidArgument
from redline.identity.key_settings import rules as config
from redline.webhooks import AddressGuard


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def issue_paths(error: InvalidArgument) -> list[str]:
    assert error.details is not None
    return [issue["path"] for issue in error.details["issues"]]


@pytest.mark.parametrize(
    "url",
    ["", "https://hooks.example.com/raw", "HTTPS://Example.com", "https://93.184.216.34/in"],
)
def test_webhook_urls_that_are_accepted(url: str) -> None:
    assert config.url_problem(url, AddressGuard()) is None


def test_the_operators_allow_list_opens_private_and_plain_http_receivers() -> None:
    url = "http://10.0.0.5:8080/in?x=1"
    assert config.url_problem(url, AddressGuard(["10.0.0.0/8"])) is None
    problem = config.url_problem(url, AddressGuard())
    assert problem is not None
    assert problem.startswith("is not a webhook target this deployment sends to")


@pytest.mark.parametrize(
    "url",
    [
        "https://169.254.169.254/latest/meta-data",
        "https://localhost/hook",
        "https://metadata.google.internal/",
        "https://2130706433/",
        "https://[::1]/",
        "http://hooks.example.com/raw",
    ],
)
def test_webhook_urls_the_address_guard_refuses(url: str) -> None:
    assert config.url_problem(url, AddressGuard())


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/x",
        "example.com/hook",
        "https://",
        "https://exa mple.com",
        "https://example.com:99999/",
        "https://user:pw@example.com/",
        "javascript:alert(1)",
        "https://example.com/\n",
    ],
)
def test_webhook_urls_that_are_rejected(url: str) -> None:
    assert config.url_problem(url, AddressGuard())


def test_webhook_validation_names_each_bad_field(rsa_key: rsa.RSAPrivateKey) -> None:
    patch = {
        "webhookServiceConfig": {
            "rawNotificationUrl": "ftp://x.example.com",
            "processedNotificationUrl": "https://ok.example.com",
            "encryptData": True,
        }
    }
    with pytest.raises(InvalidArgument) as caught:
        config.check_webhook(config.merge_webhook(None, patch), patch, "data", AddressGuard())
    assert issue_paths(caught.value) == [
        "data.webhookServiceConfig.rawNotificationUrl",
        "data.webhookServiceConfig.publicKey",
    ]

    good = {"webhookServiceConfig": {"encryptData": True, "publicKey": pem(rsa_key)}}
    config.check_webhook(config.merge_webhook(None, good), good, "data", AddressGuard())


def test_a_key_sent_without_encryption_is_still_checked() -> None:
    patch = {"publicKey": "garbage"}
    with pytest.raises(InvalidArgument) as caught:
        config.check_advanced_webhook({"isEnabled": True, "publicKey": "garbage"}, patch)
    assert issue_paths(caught.value) == ["data.publicKey"]


def test_merged_triggers_are_bounded() -> None:
    stored = {"triggers": {f"custom.t{i}": True for i in range(config.MAX_TRIGGERS)}}
    merged = config.merge_activity(stored, {"triggers": {"custom.one_more": True}}, now=1)

    with pytest.raises(InvalidArgument) as caught:
        config.check_activity(merged)
    assert issue_paths(caught.value) == ["data.activityServiceConfig.triggers"]

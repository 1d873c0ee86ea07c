"""The pure parts of the app configuration: how AI model keys are masked, and sealed again for
another API key when a configuration is copied."""

from __future__ import annotations

import base64

import pytest

from redline.identity.app_settings.service import mask_key, reseal_app
from redline.identity.provider.stored import (
    ProviderSettings,
    open_token,
    reseal_provider,
    seal_token,
    settings_of,
)
from redline.identity.tokens import Sealer

SEALER = Sealer(b"k" * 32)


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("sk-openai-0123456789abcdefXyZ", "sk-open...XyZ"),
        ("abcdefghijkl", "abc...jkl"),
        ("short-key", "..."),
        ("", "..."),
    ],
)
def test_keys_are_shown_masked(key: str, shown: str) -> None:
    assert mask_key(key) == shown


def test_ai_keys_are_sealed_again_for_the_target_key() -> None:
    sealed = SEALER.seal("sk-secret", "source:ai:openai")
    app = {
        "requireJwtToken": True,
        "aiModels": {"openai": {"sealed": base64.b64encode(sealed).decode(), "displayText": "..."}},
    }

    copied = reseal_app(app, SEALER, "source", "target")

    assert copied is not None
    assert copied["requireJwtToken"] is True
    entry = copied["aiModels"]["openai"]
    assert SEALER.unseal(base64.b64decode(entry["sealed"]), "target:ai:openai") == "sk-secret"
    assert reseal_app(None, SEALER, "source", "target") is None


def test_the_provider_token_opens_only_for_its_key_after_a_copy() -> None:
    settings = ProviderSettings(True, "https://p.example.com", seal_token(SEALER, "a", "tok"))

    copied = settings_of(reseal_provider(_builtins(settings), SEALER, "a", "b"))

    assert open_token(SEALER, "b", copied) == "tok"
    assert copied.permissionProviderUrl == "https://p.example.com"
    assert seal_token(SEALER, "a", "") == ""
    assert open_token(SEALER, "a", ProviderSettings()) == ""


def _builtins(settings: ProviderSettings) -> dict[str, object]:
    return {
        "usePermissionProvider": settings.usePermissionProvider,
        "permissionProviderUrl": settings.permissionProviderUrl,
        "authTokenSealed": settings.authTokenSealed,
    }

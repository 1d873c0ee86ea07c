"""Identity's settings from REDLINE_* variables: the limits' defaults, and values out of their
bounds refused at start, naming the variable."""

from __future__ import annotations

import pytest

from redline.identity.settings import IdentitySettings
from redline.runtime.settings import SettingsError, load_settings


def test_the_limits_have_their_defaults() -> None:
    settings = load_settings(IdentitySettings, {})

    assert settings.max_api_keys_per_workspace == 100
    assert settings.permission_provider_concurrency == 4
    assert settings.permission_provider_queue_wait_s == 0.1
    assert settings.permission_provider_breaker_failures == 5
    assert settings.permission_provider_breaker_cooldown_s == 10.0
    assert settings.permission_provider_failure_cache_ttl_s == 2.0


def test_the_limits_are_read_from_the_environment() -> None:
    settings = load_settings(
        IdentitySettings,
        {
            "REDLINE_MAX_API_KEYS_PER_WORKSPACE": "7",
            "REDLINE_PERMISSION_PROVIDER_CONCURRENCY": "2",
            "REDLINE_PERMISSION_PROVIDER_BREAKER_COOLDOWN_S": "30",
        },
    )

    assert settings.max_api_keys_per_workspace == 7
    assert settings.permission_provider_concurrency == 2
    assert settings.permission_provider_breaker_cooldown_s == 30.0


@pytest.mark.parametrize(
    "variable",
    [
        "REDLINE_MAX_API_KEYS_PER_WORKSPACE",
        "REDLINE_PERMISSION_PROVIDER_CONCURRENCY",
        "REDLINE_PERMISSION_PROVIDER_BREAKER_FAILURES",
    ],
)
def test_a_count_below_one_is_refused_naming_the_variable(variable: str) -> None:
    with pytest.raises(SettingsError, match=variable):
        load_settings(IdentitySettings, {variable: "0"})


@pytest.mark.parametrize(
    "variable",
    [
        "REDLINE_PERMISSION_PROVIDER_QUEUE_WAIT_S",
        "REDLINE_PERMISSION_PROVIDER_BREAKER_COOLDOWN_S",
        "REDLINE_PERMISSION_PROVIDER_FAILURE_CACHE_TTL_S",
    ],
)
def test_a_negative_time_is_refused_naming_the_variable(variable: str) -> None:
    with pytest.raises(SettingsError, match=variable):
        load_settings(IdentitySettings, {variable: "-1"})

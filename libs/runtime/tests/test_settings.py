import base64

import pytest

from redline.runtime.settings import RuntimeSettings, SettingsError, load_settings


def test_reads_prefixed_variables_and_converts_types() -> None:
    settings = load_settings(
        RuntimeSettings,
        {
            "REDLINE_PORT": "9090",
            "REDLINE_OPEN_SIGNUP": "true",
            "REDLINE_HEADER_BRANDS": "redline, acme",
            "REDLINE_AUTH_CACHE_TTL_S": "2.5",
            "UNRELATED": "x",
        },
    )
    assert settings.port == 9090
    assert settings.open_signup is True
    assert settings.header_brands == ["redline", "acme"]
    assert settings.auth_cache_ttl_s == 2.5


def test_defaults_apply_when_unset() -> None:
    settings = load_settings(RuntimeSettings, {})
    assert settings.port == 8080
    assert settings.header_brands == ["redline"]
    assert settings.open_signup is False


def test_overrides_win_over_the_environment() -> None:
    settings = load_settings(RuntimeSettings, {"REDLINE_PORT": "1"}, port=2)
    assert settings.port == 2


def test_a_bad_value_names_the_variable() -> None:
    with pytest.raises(SettingsError, match="REDLINE_PORT"):
        load_settings(RuntimeSettings, {"REDLINE_PORT": "eighty"})


@pytest.mark.parametrize(
    ("value", "problem"),
    [(None, "not set"), ("!!!", "base64"), (base64.b64encode(b"short").decode(), "32 bytes")],
)
def test_secret_key_must_be_32_bytes_of_base64(value: str | None, problem: str) -> None:
    with pytest.raises(SettingsError, match=problem):
        RuntimeSettings(secret_key=value).secret_key_bytes()


def test_secret_key_is_decoded() -> None:
    key = bytes(range(32))
    assert RuntimeSettings(secret_key=base64.b64encode(key).decode()).secret_key_bytes() == key


@pytest.mark.parametrize(
    "variable",
    [
        "REDLINE_PAGE_BYTE_BUDGET",
        "REDLINE_MAIL_RECIPIENTS_PER_HOUR",
        "REDLINE_MAIL_RECIPIENTS_PER_DAY",
    ],
)
def test_page_and_mail_bounds_must_allow_something(variable: str) -> None:
    with pytest.raises(SettingsError, match=variable):
        load_settings(RuntimeSettings, {variable: "0"})

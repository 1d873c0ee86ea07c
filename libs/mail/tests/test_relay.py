"""REDLINE_SMTP_URL: what each form of the URL means, and errors that name the setting."""

from __future__ import annotations

import pytest

from redline.mail import SmtpRelay, parse_smtp_url


@pytest.mark.parametrize(
    ("url", "relay"),
    [
        ("smtp://mail.acme.dev", SmtpRelay(host="mail.acme.dev", port=587, security="starttls")),
        ("smtps://mail.acme.dev", SmtpRelay(host="mail.acme.dev", port=465, security="tls")),
        (
            "smtp://relay.internal?security=none",
            SmtpRelay(host="relay.internal", port=25, security="none"),
        ),
        (
            "smtp://127.0.0.1:2525?security=none",
            SmtpRelay(host="127.0.0.1", port=2525, security="none"),
        ),
        (
            "smtp://apikey:p%40ss%2Fword@smtp.example.com:2587",
            SmtpRelay(
                host="smtp.example.com",
                port=2587,
                security="starttls",
                username="apikey",
                password="p@ss/word",
            ),
        ),
    ],
)
def test_each_form_names_its_relay(url: str, relay: SmtpRelay) -> None:
    assert parse_smtp_url(url) == relay


@pytest.mark.parametrize(
    "url",
    [
        "http://mail.acme.dev",
        "smtp://",
        "smtp://mail.acme.dev:99999",
        "smtp://mail.acme.dev?security=ssl",
        "smtp://mail.acme.dev?from=a@b.c",
        "smtps://mail.acme.dev?security=none",
    ],
)
def test_what_is_not_a_relay_is_refused_naming_the_setting(url: str) -> None:
    with pytest.raises(ValueError, match="REDLINE_SMTP_URL"):
        parse_smtp_url(url)


def test_the_password_is_not_in_the_relay_repr() -> None:
    relay = parse_smtp_url("smtp://user:hunter2@mail.acme.dev")

    assert "hunter2" not in repr(relay)

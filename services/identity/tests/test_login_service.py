"""Where a login link may lead on to: an http(s) URL on an allowed host, worded as the hosted
product words its refusals."""

from __future__ import annotations

import pytest

from redline.envelope.errors import InvalidArgument
from redline.identity.login.service import check_continue_url

ALLOWED = frozenset({"localhost", "console.acme.dev"})


@pytest.mark.parametrize(
    "url", ["http://localhost:3000/x", "https://console.acme.dev/", "https://CONSOLE.acme.dev"]
)
def test_urls_on_allowed_hosts_pass(url: str) -> None:
    check_continue_url(url, ALLOWED)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "Invalid url for continueUrl"),
        ("ftp://localhost/", "Invalid url for continueUrl"),
        ("http://localhost:99999/", "Invalid url for continueUrl"),
        ("https:///path", "Invalid url for continueUrl"),
        ("https://evil.example/", "The continueUrl domain is not allowed."),
        ("https://localhost.evil.example/", "The continueUrl domain is not allowed."),
    ],
)
def test_other_urls_are_refused(url: str, message: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        check_continue_url(url, ALLOWED)

    assert refused.value.message == message

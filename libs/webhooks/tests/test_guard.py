"""The address guard keeps webhooks off this network: hostile URLs in every spelling, host names
that resolve inward, and redirects never reach a receiver; allow-listed and public targets do."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import pytest
import yarl
from aiohttp import web

from redline.webhooks import AddressGuard, BlockedTarget

if TYPE_CHECKING:
    from conftest import FixedResolver, OpenClient, Receiver, StartReceiver

ResolverFactory = Callable[[Mapping[str, Sequence[str]]], "FixedResolver"]

LOOPBACK = "a loopback address"
PRIVATE = "a private address"
LINK_LOCAL = "a link-local address"
UNSPECIFIED = "the unspecified address"
MULTICAST = "a multicast address"

# (target, what the blocked outcome must say). {http} and {https} are the ports of local plain
# and TLS receivers trusted by the client, so a target the guard let through would reach one.
HOSTILE_TARGETS = [
    ("http://127.0.0.1:{http}/", "plain http is only allowed for allow-listed hosts"),
    ("https://127.0.0.1:{https}/", LOOPBACK),
    ("https://2130706433:{https}/", LOOPBACK),
    ("https://0x7f000001:{https}/", LOOPBACK),
    ("https://0x7f.0.0.1:{https}/", LOOPBACK),
    ("https://0177.0.0.1:{https}/", LOOPBACK),
    ("https://017700000001:{https}/", LOOPBACK),
    ("https://127.1:{https}/", LOOPBACK),
    ("https://127.0.0.1.:{https}/", LOOPBACK),
    ("https://0.0.0.0:{https}/", UNSPECIFIED),
    ("https://0:{https}/", UNSPECIFIED),
    ("https://[::]:{https}/", UNSPECIFIED),
    ("https://[::1]:{https}/", LOOPBACK),
    ("https://[::ffff:127.0.0.1]:{https}/", LOOPBACK),
    ("https://[::ffff:7f00:1]:{https}/", LOOPBACK),
    ("https://[0:0:0:0:0:ffff:127.0.0.1]:{https}/", LOOPBACK),
    ("https://[::127.0.0.1]:{https}/", LOOPBACK),
    ("https://[64:ff9b::7f00:1]:{https}/", LOOPBACK),
    ("https://[2002:7f00:1::]:{https}/", LOOPBACK),
    ("https://localhost:{https}/", "localhost"),
    ("https://LOCALHOST.:{https}/", "localhost"),
    ("https://foo.localhost:{https}/", "localhost"),
    ("https://10.0.0.1/", PRIVATE),
    ("https://10.1/", PRIVATE),
    ("https://172.16.5.4/", PRIVATE),
    ("https://192.168.1.1/", PRIVATE),
    ("https://0xc0.0xa8.1.1/", PRIVATE),
    ("https://[::ffff:192.168.1.1]/", PRIVATE),
    ("https://[fd00::1]/", PRIVATE),
    ("https://[FD12:3456::1]/", PRIVATE),
    ("https://169.254.169.254/latest/meta-data", LINK_LOCAL),
    ("https://[::ffff:169.254.169.254]/latest/meta-data", LINK_LOCAL),
    ("https://[fe80::1%25eth0]/", LINK_LOCAL),
    ("https://[FE80::1]/", LINK_LOCAL),
    ("https://100.64.0.1/", "a carrier-grade NAT address"),
    ("https://224.0.0.1/", MULTICAST),
    ("https://[ff02::1]/", MULTICAST),
    ("https://255.255.255.255/", "the broadcast address"),
    ("https://240.0.0.1/", "a reserved address"),
    ("https://[64:ff9b:1::a00:1]/", "a reserved address"),
    ("https://192.0.2.1/", "not globally routable"),
    ("https://metadata/computeMetadata/v1/", "a cloud metadata service"),
    ("https://metadata.google.internal/", "a cloud metadata service"),
    ("https://anything.internal/", "an internal name"),
    ("https://0x5db8d822/", "non-standard spelling"),
    ("https://exa%20mple.com/", "not a valid host name"),
    ("ftp://example.com/", "must start with https://"),
    ("file:///etc/passwd", "must start with https://"),
    ("http://example.com/", "plain http is only allowed for allow-listed hosts"),
    ("https://user:pw@example.com/", "must not contain a user name or password"),
    ("https://user@example.com/", "must not contain a user name or password"),
    ("https:///hooks", "the URL has no host"),
    ("https://example.com:99999/", "the URL is not valid"),
]


@pytest.fixture
async def plain(start_receiver: StartReceiver) -> Receiver:
    return await start_receiver()


@pytest.fixture
async def tls(start_receiver: StartReceiver) -> Receiver:
    return await start_receiver(tls=True)


@pytest.mark.parametrize(("template", "reason"), HOSTILE_TARGETS)
async def test_hostile_targets_are_blocked_and_reach_no_receiver(
    template: str,
    reason: str,
    plain: Receiver,
    tls: Receiver,
    open_client: OpenClient,
    ca_file: str,
) -> None:
    client = await open_client(AddressGuard(), ca_file=ca_file, timeout_s=2)
    url = template.format(http=plain.port, https=tls.port)

    outcome = await client.post(url, b"{}", {"Content-Type": "application/json"})

    assert not outcome.ok
    assert outcome.status is None
    assert outcome.error is not None
    assert outcome.error.startswith("blocked: ")
    assert reason in outcome.error
    assert plain.requests == []
    assert tls.requests == []


async def test_the_receivers_used_above_are_reached_when_allow_listed(
    plain: Receiver, tls: Receiver, open_client: OpenClient, ca_file: str
) -> None:
    client = await open_client(AddressGuard(["127.0.0.1"]), ca_file=ca_file, timeout_s=2)

    over_http = await client.post(plain.url(), b"{}", {})
    over_https = await client.post(f"https://127.0.0.1:{tls.port}/", b"{}", {})

    assert (over_http.ok, over_https.ok) == (True, True)
    assert (len(plain.requests), len(tls.requests)) == (1, 1)


async def test_a_name_resolving_to_loopback_is_blocked_before_connecting(
    tls: Receiver, open_client: OpenClient, ca_file: str, fixed_resolver: ResolverFactory
) -> None:
    resolver = fixed_resolver({"receiver.example.com": ["127.0.0.1"]})
    client = await open_client(AddressGuard(), ca_file=ca_file, resolver=resolver)

    outcome = await client.post(f"https://receiver.example.com:{tls.port}/", b"{}", {})

    assert not outcome.ok
    assert outcome.error == "blocked: the host resolves to a loopback address"
    assert resolver.asked == ["receiver.example.com"]
    assert tls.requests == []


@pytest.mark.parametrize(
    "addresses",
    [["93.184.216.34", "127.0.0.1"], ["127.0.0.1", "93.184.216.34"], ["2606:4700::1", "10.0.0.7"]],
)
async def test_a_name_with_any_internal_address_is_blocked(
    addresses: list[str],
    tls: Receiver,
    open_client: OpenClient,
    ca_file: str,
    fixed_resolver: ResolverFactory,
) -> None:
    resolver = fixed_resolver({"receiver.example.com": addresses})
    client = await open_client(AddressGuard(), ca_file=ca_file, resolver=resolver, timeout_s=2)

    outcome = await client.post(f"https://receiver.example.com:{tls.port}/", b"{}", {})

    assert not outcome.ok
    assert outcome.error is not None
    assert outcome.error.startswith("blocked: the host resolves to ")
    assert tls.requests == []


@pytest.mark.parametrize("allow", ["receiver.example.com", "RECEIVER.example.com.", "127.0.0.0/8"])
async def test_an_allow_listed_name_or_network_is_reached_after_resolving(
    allow: str,
    tls: Receiver,
    open_client: OpenClient,
    ca_file: str,
    fixed_resolver: ResolverFactory,
) -> None:
    resolver = fixed_resolver({"receiver.example.com": ["127.0.0.1"]})
    client = await open_client(AddressGuard([allow]), ca_file=ca_file, resolver=resolver)

    outcome = await client.post(f"https://receiver.example.com:{tls.port}/", b"{}", {})

    assert outcome.ok, outcome.error
    assert len(tls.requests) == 1


async def test_an_allow_listed_name_may_use_plain_http(
    plain: Receiver, open_client: OpenClient, fixed_resolver: ResolverFactory
) -> None:
    resolver = fixed_resolver({"hooks.corp.example": ["127.0.0.1"]})
    client = await open_client(AddressGuard(["hooks.corp.example"]), resolver=resolver)

    outcome = await client.post(f"http://hooks.corp.example:{plain.port}/in", b"{}", {})

    assert outcome.ok, outcome.error
    assert [request.path_qs for request in plain.requests] == ["/in"]


@pytest.mark.parametrize(
    "location", ["{other}", "http://169.254.169.254/latest/meta-data", "/elsewhere"]
)
async def test_redirects_are_failures_and_never_followed(
    location: str, start_receiver: StartReceiver, open_client: OpenClient
) -> None:
    other = await start_receiver()
    sent_to = location.format(other=other.url("/stolen"))

    async def redirect(request: web.Request) -> web.StreamResponse:
        return web.Response(status=302, headers={"Location": sent_to})

    first = await start_receiver(redirect)
    client = await open_client(AddressGuard(["127.0.0.1"]))

    outcome = await client.post(first.url(), b"{}", {})

    assert not outcome.ok
    assert outcome.status == 302
    assert outcome.error == f"redirect not followed (302 to {sent_to})"
    assert len(first.requests) == 1
    assert other.requests == []


@pytest.mark.parametrize(
    "url",
    [
        "https://93.184.216.34/",
        "https://example.com/hooks?token=abc",
        "https://EXAMPLE.com./hooks",
        "https://bücher.example/hooks",
        "https://[2606:4700:4700::1111]/",
        "https://[64:ff9b::5db8:d822]/",
        "https://[::ffff:93.184.216.34]/",
    ],
)
def test_public_targets_pass_the_url_check(url: str) -> None:
    checked = AddressGuard().check_url(url)

    assert checked == yarl.URL(url)


@pytest.mark.parametrize(
    ("allow", "url"),
    [
        (["10.0.0.0/8"], "http://10.1.2.3:8080/hooks"),
        (["10.0.0.0/8"], "https://10.1.2.3/hooks"),
        (["10.1.2.3"], "http://10.1.2.3/"),
        (["10.0.0.0/8"], "https://[::ffff:10.1.2.3]/"),
        (["fd00::/8"], "https://[fd00::1]/"),
        (["Hooks.Corp.Example."], "http://HOOKS.corp.example./in"),
        (["localhost"], "http://localhost:8080/"),
        (["  ci-receiver  "], "http://ci-receiver/"),
    ],
)
def test_allow_listed_targets_pass_the_url_check(allow: list[str], url: str) -> None:
    checked = AddressGuard(allow).check_url(url)

    assert checked == yarl.URL(url)


@pytest.mark.parametrize(
    ("allow", "url", "reason"),
    [
        (["10.0.0.0/8"], "https://192.168.1.1/", PRIVATE),
        (["hooks.corp.example"], "http://other.corp.example/", "plain http"),
        (["hooks.corp.example"], "http://sub.hooks.corp.example/", "plain http"),
        (["corp.internal"], "https://hooks.corp.internal/", "an internal name"),
        (["127.0.0.1"], "https://127.0.0.2/", LOOPBACK),
        (["127.0.0.0/8"], "http://127.1/", "plain http"),
        (["127.0.0.0/8"], "https://2130706433/", LOOPBACK),
        # Spellings no request could be sent to: an IPv4 address with the root's dot, port 0.
        (["127.0.0.1"], "http://127.0.0.1.:8080/", "plain http"),
        ([], "https://93.184.216.34./", "non-standard spelling"),
        (["127.0.0.1"], "http://127.0.0.1:0/", "port must be between 1 and 65535"),
        ([], "https://example.com:0/", "port must be between 1 and 65535"),
    ],
)
def test_the_allow_list_opens_only_what_it_names(allow: list[str], url: str, reason: str) -> None:
    with pytest.raises(BlockedTarget, match=re.escape(reason)):
        AddressGuard(allow).check_url(url)


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("10.0.0.1", PRIVATE),
        ("::ffff:10.0.0.1", PRIVATE),
        ("fe80::1%eth0", LINK_LOCAL),
        ("127.0.0.53", LOOPBACK),
        ("::", UNSPECIFIED),
    ],
)
def test_resolved_internal_addresses_are_blocked(address: str, reason: str) -> None:
    with pytest.raises(BlockedTarget, match=f"^the host resolves to {re.escape(reason)}$"):
        AddressGuard().check_address(address)


def test_resolved_addresses_pass_when_public_or_in_an_allowed_network() -> None:
    AddressGuard().check_address("93.184.216.34")
    AddressGuard().check_address("2606:4700::1111")
    AddressGuard(["10.0.0.0/8"]).check_address("10.9.8.7")
    AddressGuard(["10.0.0.0/8"]).check_address("::ffff:10.9.8.7")
    with pytest.raises(BlockedTarget):
        AddressGuard(["10.0.0.0/8"]).check_address("192.168.0.1")


@pytest.mark.parametrize(
    "entry",
    [
        "",
        "10.0.0.1/33",
        "10.0.0.1/8",
        "127.1",
        "0x7f000001",
        "exa mple.com",
        "*.example.com",
        "https://example.com",
        "[::1]",
        "-bad.example.com",
        "bücher.example",
    ],
)
def test_invalid_allow_list_entries_are_refused_by_name(entry: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(entry))):
        AddressGuard(["example.com", entry])

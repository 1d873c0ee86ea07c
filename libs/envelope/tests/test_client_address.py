from aiohttp.test_utils import make_mocked_request

from redline.envelope.client_address import client_address, parse_networks


def request_from(remote: str, forwarded: str | None = None):  # type: ignore[no-untyped-def]
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    request = make_mocked_request("POST", "/", headers=headers)
    return request.clone(remote=remote)


def test_without_trusted_proxies_the_peer_is_the_client() -> None:
    assert client_address(request_from("203.0.113.5", "198.51.100.1"), ()) == "203.0.113.5"


def test_forwarded_for_is_ignored_from_an_untrusted_peer() -> None:
    trusted = parse_networks(["10.0.0.0/8"])
    assert client_address(request_from("203.0.113.5", "198.51.100.1"), trusted) == "203.0.113.5"


def test_the_rightmost_untrusted_hop_is_the_client() -> None:
    trusted = parse_networks(["10.0.0.0/8", "192.0.2.7"])
    # The left entry is whatever the client claimed; the proxies appended the rest.
    request = request_from("10.1.2.3", "1.1.1.1, 198.51.100.9, 192.0.2.7")
    assert client_address(request, trusted) == "198.51.100.9"


def test_only_trusted_hops_fall_back_to_the_first() -> None:
    trusted = parse_networks(["10.0.0.0/8"])
    assert client_address(request_from("10.0.0.2", "10.0.0.9, 10.0.0.3"), trusted) == "10.0.0.9"

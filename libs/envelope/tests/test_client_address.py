from aiohttp.test_utils import make_mocked_request

from redline.envelope.client_address import client_address, parse_networks


def request_from(remote: str, forwarded: str | None = None):  # type: ignore[no-untyped-def]
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    request = make_mocked_request("POST", "/", headers=headers)
    return request.clone(remote=remote)


CLUSTER = parse_networks(["10.0.0.0/8"])


def test_without_trusted_proxies_the_peer_is_the_client() -> None:
    assert client_address(request_from("203.0.113.5", "198.51.100.1"), ()) == "203.0.113.5"


def test_forwarded_for_is_ignored_from_an_untrusted_peer() -> None:
    assert client_address(request_from("203.0.113.5", "198.51.100.1"), CLUSTER) == "203.0.113.5"


def test_a_trusted_peer_without_forwarded_for_is_the_client() -> None:
    assert client_address(request_from("10.0.0.2"), CLUSTER) == "10.0.0.2"


def test_one_proxy_the_entry_it_appended_is_the_client() -> None:
    # The gateway appended the address it saw; what stands before it the client wrote.
    request = request_from("10.0.0.2", "198.51.100.1, 203.0.113.9")
    assert client_address(request, CLUSTER) == "203.0.113.9"


def test_a_client_inside_the_proxies_network_cannot_claim_another_address() -> None:
    # A pod at 10.0.0.66 names a neighbour; the gateway appends the pod's own address. Every
    # entry lies in the trusted range, and still only the appended one is believed.
    request = request_from("10.0.0.2", "10.0.0.7, 10.0.0.66")
    assert client_address(request, CLUSTER) == "10.0.0.66"


def test_two_proxies_the_client_is_two_entries_from_the_right() -> None:
    trusted = parse_networks(["10.0.0.0/8", "192.0.2.7"])
    # A CDN at 192.0.2.7 appended the client, the gateway appended the CDN.
    request = request_from("10.1.2.3", "1.1.1.1, 198.51.100.9, 192.0.2.7")
    assert client_address(request, trusted, hops=2) == "198.51.100.9"


def test_the_walk_stops_at_the_first_entry_that_is_no_proxy() -> None:
    trusted = parse_networks(["10.0.0.0/8", "192.0.2.7"])
    # This request reached the gateway without the CDN: the gateway's entry is the client.
    request = request_from("10.1.2.3", "1.1.1.1, 198.51.100.9")
    assert client_address(request, trusted, hops=2) == "198.51.100.9"


def test_fewer_entries_than_proxies_the_leftmost_is_the_client() -> None:
    request = request_from("10.1.2.3", "10.0.0.9")
    assert client_address(request, CLUSTER, hops=3) == "10.0.0.9"

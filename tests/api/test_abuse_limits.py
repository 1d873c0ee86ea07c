"""Limits that protect credentials: failed checks per client address, sign-up per address."""

from __future__ import annotations

from redline.testing.api import StartApi

MESSAGE = "Rate limit exceeded. Try again after 1 minute."


async def test_an_address_that_keeps_failing_authentication_is_slowed_down(
    start_api: StartApi,
) -> None:
    api = await start_api(rate_limit_auth_failures=3)
    ws = await api.create_workspace("guess@example.com")
    wrong = {**ws.key_headers, "x-redline-auth-token": "guess"}
    statuses = [
        (await api.post("/v2/workspace/domains/get", headers=wrong)).status for _ in range(3)
    ]
    assert statuses == [401, 401, 401]
    refused = await api.post("/v2/workspace/domains/get", headers=wrong)
    assert refused.status == 429
    assert refused.error == {"status": "RESOURCE_EXHAUSTED", "message": MESSAGE}
    assert 1 <= int(refused.headers["Retry-After"]) <= 60


async def test_the_right_credentials_are_served_after_the_address_used_up_its_failures(
    start_api: StartApi,
) -> None:
    # Whoever shares the address (a NAT, a proxy) and fails cannot lock out those who do not.
    api = await start_api(rate_limit_auth_failures=3)
    ws = await api.create_workspace("shared@example.com")
    wrong = {**ws.key_headers, "x-redline-auth-token": "guess"}
    for _ in range(4):
        await api.post("/v2/workspace/domains/get", headers=wrong)

    served = await api.post("/v2/workspace/domains/get", headers=ws.key_headers)
    still_refused = await api.post("/v2/workspace/domains/get", headers=wrong)

    assert served.status == 200
    assert still_refused.status == 429


async def test_a_client_behind_the_gateway_cannot_spend_another_addresss_failures(
    start_api: StartApi,
) -> None:
    # This test plays the gateway (the loopback peer): it appends the address it saw, the
    # cluster's own network, to what the client sent.
    api = await start_api(
        rate_limit_auth_failures=3, trusted_proxies=["127.0.0.0/8", "::1/128", "10.0.0.0/8"]
    )
    ws = await api.create_workspace("victim@example.com")
    wrong = {**ws.key_headers, "x-redline-auth-token": "guess"}
    attacker = {**wrong, "X-Forwarded-For": "10.0.0.7, 10.0.0.66"}  # claims the victim's
    for _ in range(5):
        await api.post("/v2/workspace/domains/get", headers=attacker)

    victim_typo = await api.post(
        "/v2/workspace/domains/get", headers={**wrong, "X-Forwarded-For": "10.0.0.7"}
    )
    attacker_again = await api.post("/v2/workspace/domains/get", headers=attacker)

    assert victim_typo.status == 401  # its own allowance is untouched
    assert attacker_again.status == 429


async def test_successful_calls_do_not_count_as_failures(start_api: StartApi) -> None:
    api = await start_api(rate_limit_auth_failures=2)
    ws = await api.create_workspace("fine@example.com")
    for _ in range(5):
        ok = await api.post("/v2/workspace/domains/get", headers=ws.key_headers)
        assert ok.status == 200


async def test_admin_token_guesses_count_against_the_signup_limit(start_api: StartApi) -> None:
    api = await start_api(open_signup=False, admin_token="the-operator-token", rate_limit_signup=2)
    for _ in range(2):
        guess = await api.post(
            "/v2/workspace/create",
            {"ownerEmail": "x@example.com"},
            headers={"x-redline-admin-token": "guess"},
        )
        assert guess.status == 401
    right = await api.post(
        "/v2/workspace/create",
        {"ownerEmail": "x@example.com"},
        headers={"x-redline-admin-token": "the-operator-token"},
    )
    assert right.status == 429


async def test_forwarded_address_from_a_trusted_proxy_is_limited_per_client(
    start_api: StartApi,
) -> None:
    api = await start_api(rate_limit_signup=1, trusted_proxies=["127.0.0.1/32", "::1/128"])
    body = {"ownerEmail": "p@example.com"}
    first = await api.post(
        "/v2/workspace/create", body, headers={"X-Forwarded-For": "198.51.100.1"}
    )
    other = await api.post(
        "/v2/workspace/create", body, headers={"X-Forwarded-For": "198.51.100.2"}
    )
    again = await api.post(
        "/v2/workspace/create", body, headers={"X-Forwarded-For": "198.51.100.1"}
    )
    assert [first.status, other.status, again.status] == [200, 200, 429]

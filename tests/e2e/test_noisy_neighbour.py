"""No tenant can hurt another: tenant A attacks, bounded in count and time, while tenant B keeps
a steady load of comment adds and reads, knowledge searches and workflow runs. B sees no error
and keeps its p99 within twice that of the same load alone; each attack meets its refusal or its
bound. `-s` prints the figures of every attack."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from tests.e2e.neighbours import (
    A_ADDRESS,
    B_ADDRESS,
    SteadyLoad,
    Tenant,
    system_process,
    tenant,
    under_attack,
)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
async def base_url(database_url: str, nats_url: str, tmp_path: Path) -> AsyncIterator[str]:
    async with system_process(database_url, nats_url, tmp_path) as url:
        yield url


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
async def b(session: aiohttp.ClientSession, base_url: str) -> SteadyLoad:
    load = SteadyLoad(await tenant(session, base_url, "b@example.com"))
    await load.prepare()
    return load


@pytest.fixture
async def a(session: aiohttp.ClientSession, base_url: str) -> Tenant:
    return await tenant(session, base_url, "a@example.com")


async def test_forged_signatures_and_tokens_are_refused_and_b_goes_on(
    b: SteadyLoad, a: Tenant
) -> None:
    base = a.api.base_url

    async def attack() -> str:
        statuses: dict[int, int] = {}
        for i in range(150):
            if i % 2:
                query = "expires=99999999999999&signature=%C3%A9"
                url = f"{base}/v2/memory/knowledge/uploads/up_{i}?{query}"
                call = a.api.session.put(url, data=b"x", headers={"content-type": "text/plain"})
            else:
                url = f"{base}/v2/workflow/callbacks/exec_{i}/step_{i}"
                token = "é".encode().decode("latin-1")
                call = a.api.session.post(
                    url, data=b"{}", headers={"x-redline-callback-token": token}
                )
            async with call as answer:
                statuses[answer.status] = statuses.get(answer.status, 0) + 1
        assert set(statuses) <= {401, 403}, statuses
        return f"150 forged calls answered {statuses}"

    await under_attack(b, "forged signatures and tokens", attack)


async def test_bad_credentials_claiming_b_s_address_do_not_lock_b_out(
    b: SteadyLoad, a: Tenant
) -> None:
    """A presents wrong tokens with B's address first in X-Forwarded-For; the gateway (a
    trusted proxy) appends A's real address, which lies in the trusted network too, and only
    that one is A's to spend."""

    async def attack() -> str:
        forged = {
            **a.headers,
            "x-redline-auth-token": "wrong",
            "X-Forwarded-For": f"{B_ADDRESS}, {A_ADDRESS}",
        }
        statuses: dict[int, int] = {}
        for _ in range(200):
            answer = await a.api.post("/v2/workspace/domains/get", headers=forged)
            statuses[answer.status] = statuses.get(answer.status, 0) + 1
            await asyncio.sleep(0)
        assert set(statuses) <= {401, 429}, statuses
        assert statuses.get(429), "A's own address was never slowed down"
        return f"200 bad credentials answered {statuses}"

    await under_attack(b, "bad credentials claiming B's address", attack)

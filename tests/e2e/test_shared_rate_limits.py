"""Rate limits hold across replicas: two replicas of one service, on one PostgreSQL and NATS as
a deployment's are, share a tenant's limit instead of granting it once each."""

from __future__ import annotations

from typing import Any

from redline.envelope.ratelimit import unsynced_allowance
from redline.identity.app import create_app
from redline.identity.settings import IdentitySettings
from redline.runtime.settings import load_settings
from tests.e2e.conftest import StartApp

LIMIT = 10


async def test_two_replicas_of_a_service_hold_one_limit_between_them(
    runtime_overrides: dict[str, Any], start_app: StartApp
) -> None:
    settings = load_settings(
        IdentitySettings, {}, **{**runtime_overrides, "rate_limit_general": LIMIT}
    )
    replicas = [await start_app(create_app(settings)) for _ in range(2)]
    ws = await replicas[0].create_workspace("replicas@example.com")

    # A balancer sends the tenant's requests to each replica in turn.
    statuses = [
        (await replicas[n % 2].post("/v2/workspace/domains/get", headers=ws.key_headers)).status
        for n in range(3 * LIMIT)
    ]

    accepted = statuses.count(200)
    # Each replica may admit its unsynced allowance on a view the other has not folded into.
    assert LIMIT <= accepted <= LIMIT + 2 * unsynced_allowance(LIMIT)
    assert statuses.count(429) == len(statuses) - accepted

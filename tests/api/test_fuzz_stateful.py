"""Sequences of calls that follow the links of /openapi.json (an add's success names what the
operations beside and below it may read, change and delete), drawn by schemathesis' stateful
testing with valid credentials; every answer passes the same checks as single calls.
"""

from __future__ import annotations

import asyncio
import traceback
from typing import Any

import hypothesis
import pytest
import requests
from hypothesis.errors import Flaky
from schemathesis.core.failures import FailureGroup

from redline.testing.api import ApiClient, Workspace
from tests.api.fuzz_support import (
    CHECKS,
    SEED,
    TIMEOUT_S,
    Credentials,
    Report,
    budget,
    load_schema,
    settings,
)
from tests.api.test_hostile_input import api, doc, ws

pytestmark = pytest.mark.input_sweep

__all__ = ["api", "doc", "ws"]  # fixtures shared with the hostile-input sweep

# Scenarios of up to STEPS calls each.
SCENARIOS = 60
STEPS = 8
# Runs that end early (see below) are started again with the scenarios left, this often at most.
MAX_RUNS = 20


def replayed_differently(error: AssertionError) -> bool:
    """Whether Hypothesis gave up a replay that drew differently (it asserts, where it raises
    Flaky for other differences)."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and "hypothesis/internal/conjecture" in frames[-1].filename


def fuzz_sequences(doc: dict[str, Any], credentials: Credentials, base_url: str) -> Report:
    # Bodies that fit the request schema: a sequence goes on from a maker's success.
    schema = load_schema(doc, security_headers=False, mode="positive")
    report = Report()
    with requests.Session() as session:

        class Sequences(schema.as_state_machine()):  # type: ignore[misc]
            def get_call_kwargs(self, case: Any) -> dict[str, Any]:
                headers = credentials.headers(case.operation.path)
                return {"base_url": base_url, "session": session, "headers": headers}

            def after_call(self, response: Any, case: Any) -> None:
                super().after_call(response, case)
                report.record(case.operation.path, response.status_code)
                credentials.seen(case.operation.path, response)

            def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
                try:
                    case.validate_response(response, checks=CHECKS)
                except (Exception, FailureGroup) as error:
                    report.fail(case.operation.path, error, case)
                    raise

            def setup(self) -> None:
                scenarios[0] += 1

        scenarios = [0]
        for attempt in range(MAX_RUNS):
            left = budget(SCENARIOS) - scenarios[0]
            if left <= 0:
                break
            machine = hypothesis.seed(SEED + attempt)(Sequences)
            try:
                machine.run(settings=settings(left, stateful_step_count=STEPS))
            except (Flaky, FailureGroup, AssertionError) as error:
                if isinstance(error, AssertionError) and not replayed_differently(error):
                    raise
                # A check failed (recorded above), or a run replayed a sequence the system now
                # answers differently (its state changed): schemathesis' own runner starts
                # again in both cases, and so does this one.
                continue
    report.scenarios = scenarios[0]
    return report


@pytest.mark.timeout(TIMEOUT_S)
async def test_linked_sequences_keep_the_contract(
    api: ApiClient, ws: Workspace, doc: dict[str, Any]
) -> None:
    credentials = Credentials(doc, api, asyncio.get_running_loop(), ws)
    report = await asyncio.to_thread(fuzz_sequences, doc, credentials, api.base_url)
    print(f"{report.summary()}\n{credentials.renewed} workspaces renewed")
    assert report.scenarios >= budget(SCENARIOS), report.summary()
    assert not report.failures, report.summary()

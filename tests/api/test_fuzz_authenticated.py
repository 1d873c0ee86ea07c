"""Every operation of /openapi.json fuzzed with valid credentials: schemathesis draws bodies that
fit the request schema and bodies that break it, and each answer must be no server error, the
success or failure envelope, of the declared content type, fitting the declared response schema.

A workspace and its API key are made first; API-key-level and workspace-level operations get
their own headers, as the conformance sweep sends them.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import requests
from schemathesis import GenerationMode

from redline.testing.api import ApiClient, Workspace
from tests.api.fuzz_support import (
    CHECKS,
    TIMEOUT_S,
    Credentials,
    Report,
    budget,
    each_operation,
    fuzz_operation,
    load_schema,
    sender,
)
from tests.api.openapi_support import envelope_paths
from tests.api.test_hostile_input import api, doc, ws

pytestmark = pytest.mark.input_sweep

__all__ = ["api", "doc", "ws"]  # fixtures shared with the hostile-input sweep

# Examples per operation: bodies that fit the request schema reach the services' rules, bodies
# that break it the decoding.
VALID_EXAMPLES = 15
INVALID_EXAMPLES = 6


def fuzz_with_credentials(doc: dict[str, Any], credentials: Credentials, base_url: str) -> Report:
    schema = load_schema(doc, security_headers=False)
    report = Report()
    with requests.Session() as session:
        send = sender(base_url, session, lambda case: credentials.headers(case.operation.path))

        def seen(case: Any) -> Any:
            response = send(case)
            credentials.seen(case.operation.path, response)
            return response

        for operation in each_operation(schema):
            for mode, examples in (
                (GenerationMode.POSITIVE, VALID_EXAMPLES),
                (GenerationMode.NEGATIVE, INVALID_EXAMPLES),
            ):
                strategy = operation.as_strategy(generation_mode=mode)
                fuzz_operation(operation, strategy, seen, CHECKS, report, budget(examples))
    return report


@pytest.mark.timeout(TIMEOUT_S)
async def test_no_answer_breaks_the_contract_with_valid_credentials(
    api: ApiClient, ws: Workspace, doc: dict[str, Any]
) -> None:
    credentials = Credentials(doc, api, asyncio.get_running_loop(), ws)
    started = time.monotonic()
    report = await asyncio.to_thread(fuzz_with_credentials, doc, credentials, api.base_url)
    took = time.monotonic() - started
    print(f"{report.summary()}\n{credentials.renewed} workspaces renewed; {took:.0f} s")
    assert sorted(report.statuses) == envelope_paths(doc), "operations not fuzzed"
    assert not report.failures, report.summary()

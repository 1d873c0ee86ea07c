"""Every operation of /openapi.json that needs credentials, fuzzed without them: schemathesis
draws bodies and made-up values of the operation's credential headers (or none at all), and each
answer must be the failure envelope with 401 UNAUTHENTICATED, fitting the declared schema.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import requests
from hypothesis import strategies as st

from redline.testing.api import ApiClient
from tests.api.fuzz_support import (
    ANONYMOUS_CHECKS,
    TIMEOUT_S,
    Report,
    budget,
    each_operation,
    fuzz_operation,
    load_schema,
    sender,
)
from tests.api.test_hostile_input import api, doc, operations

__all__ = ["api", "doc"]  # fixtures shared with the hostile-input sweep

# Credentials are checked before the body is read: a few examples per operation reach every way
# the headers can be wrong (absent, empty, one of two, made up).
EXAMPLES = 10


def without_credentials(case: Any, keep_headers: bool) -> Any:
    if not keep_headers:
        case.headers = {}
    return case


def fuzz_without_credentials(doc: dict[str, Any], base_url: str) -> Report:
    schema = load_schema(doc, security_headers=True)
    secured = {path for path, _, level in operations(doc) if level}
    report = Report()
    with requests.Session() as session:
        send = sender(base_url, session, lambda case: {})
        for operation in each_operation(schema):
            if operation.path not in secured:
                continue
            strategy = st.builds(without_credentials, operation.as_strategy(), st.booleans())
            fuzz_operation(operation, strategy, send, ANONYMOUS_CHECKS, report, budget(EXAMPLES))
    return report


@pytest.mark.timeout(TIMEOUT_S)
async def test_every_secured_operation_refuses_a_caller_without_credentials(
    api: ApiClient, doc: dict[str, Any]
) -> None:
    report = await asyncio.to_thread(fuzz_without_credentials, doc, api.base_url)
    print(report.summary())
    secured = {path for path, _, level in operations(doc) if level}
    assert set(report.statuses) == secured, "operations not fuzzed"
    assert not report.failures, report.summary()

"""The raw routes of /openapi.json (the upload PUT, the downloads, the step callbacks, the
inbound triggers, the pages of mailed links), fuzzed as a stranger would call them: schemathesis
draws their path, query and header values (signatures, tokens, ids) and their bodies. No answer
is a server error; every answer is one the route declares, or the failure envelope.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import requests
import schemathesis
from schemathesis import GenerationMode

from redline.testing.api import ApiClient
from tests.api.fuzz_support import (
    CHECKS,
    TIMEOUT_S,
    Report,
    budget,
    each_operation,
    envelope,
    fuzz_operation,
    load_schema,
    sender,
)
from tests.api.openapi_support import raw_operations
from tests.api.test_hostile_input import api, doc

__all__ = ["api", "doc"]  # fixtures shared with the hostile-input sweep

VALID_EXAMPLES = 30
INVALID_EXAMPLES = 15


def declared_or_failure_envelope(ctx: Any, response: schemathesis.Response, case: Any) -> None:
    """An answer the route declares (a page, a file, its own JSON) or the failure envelope."""
    declared = case.operation.definition.raw["responses"]
    if str(response.status_code) not in declared:
        envelope(ctx, response, case)


RAW_CHECKS = [declared_or_failure_envelope if c is envelope else c for c in CHECKS]


def fuzz_raw_routes(doc: dict[str, Any], base_url: str) -> Report:
    schema = load_schema(doc, security_headers=False)
    report = Report()
    with requests.Session() as session:
        send = sender(base_url, session, lambda case: {})
        for operation in each_operation(schema, raw=True):
            name = f"{operation.method.upper()} {operation.path}"
            for mode, examples in (
                (GenerationMode.POSITIVE, VALID_EXAMPLES),
                (GenerationMode.NEGATIVE, INVALID_EXAMPLES),
            ):
                strategy = operation.as_strategy(generation_mode=mode)
                fuzz_operation(
                    operation, strategy, send, RAW_CHECKS, report, budget(examples), name=name
                )
    return report


@pytest.mark.timeout(TIMEOUT_S)
async def test_no_raw_route_answers_a_stranger_with_a_server_error(
    api: ApiClient, doc: dict[str, Any]
) -> None:
    raw = raw_operations(doc)
    assert {
        "PUT /v2/memory/knowledge/uploads/{upload_id}",
        "GET /v2/memory/knowledge/files/{source_id}/{purpose}",
        "POST /v2/workflow/callbacks/{execution_id}/{step_id}",
        "POST /v2/workflow/webhook-inbound/trigger",
        "GET /v2/workspace/email/login",
        "POST /v2/users/invite/accept",
    } <= set(raw)
    report = await asyncio.to_thread(fuzz_raw_routes, doc, api.base_url)
    print(report.summary())
    assert sorted(report.statuses) == raw, "routes not fuzzed"
    assert not report.failures, report.summary()

"""Property-based fuzzing of every operation in /openapi.json with schemathesis: the budget, the
credentials each operation is called with, the checks every answer must pass, and a record of
what was sent and what failed.

The operations come from the document the system serves, so endpoints added later are fuzzed as
they come, and no list of routes is kept. The one exception to "no 5xx" is the INTERNAL answer
the contract asks of a batch with failed entries (a per-id map of outcomes, or a domains add or
delete that skipped some domains): `is_batch_outcome`, shared with the hostile-input sweep, names it
once, with its reason.

Runs are seeded: the same code and budget send the same requests. `REDLINE_FUZZ_SCALE` multiplies
every budget (examples per operation, stateful scenarios) and `REDLINE_FUZZ_SEED` picks another
seed, for a longer or different search than CI's.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any

import hypothesis
import requests
import schemathesis
from hypothesis import HealthCheck, Phase
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from redline.envelope.errors import ERRORS_BY_CODE, InvalidArgument
from redline.testing.api import ApiClient, Workspace
from tests.api.openapi_support import is_raw
from tests.api.test_hostile_input import is_batch_outcome, operations

SCALE = float(os.environ.get("REDLINE_FUZZ_SCALE", "1"))
SEED = int(os.environ.get("REDLINE_FUZZ_SEED", "20261127"))


def budget(examples: int) -> int:
    """`examples` scaled by REDLINE_FUZZ_SCALE, at least one."""
    return max(1, round(examples * SCALE))


# pytest-timeout's limit for one fuzzing test: generous for the default budget, scaled with it.
TIMEOUT_S = round(600 * max(1.0, SCALE))


def settings(max_examples: int, **more: Any) -> hypothesis.settings:
    """Seeded, no example database, no shrinking (a failing case is reported as sent: shrinking
    against a system whose state each call changes costs calls and rarely converges)."""
    return hypothesis.settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=False,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        **more,
    )


def load_schema(doc: dict[str, Any], *, security_headers: bool, mode: str = "all") -> Any:
    """The document as schemathesis reads it, configured here alone (no file found on the
    machine changes what is generated). With `security_headers`, cases carry made-up values of
    the credential headers each operation declares; `mode` is "positive" (bodies that fit the
    request schema), "negative" (bodies that break it) or "all"."""
    generation = {"with-security-parameters": security_headers, "mode": mode}
    config = {"generation": generation}
    return schemathesis.openapi.from_dict(doc, config=schemathesis.Config.from_dict(config))


def _json(response: schemathesis.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        raise AssertionError(f"the answer is not JSON: {response.content[:200]!r}") from None


def no_server_error(ctx: Any, response: schemathesis.Response, case: Any) -> None:
    """No 5xx, but for the INTERNAL answers the contract asks of batches with failed entries."""
    status = response.status_code
    if status >= 500 and not is_batch_outcome(status, _json(response)):
        raise AssertionError(f"server error {status}: {response.content[:300]!r}")


# Failures of HTTP itself that are INVALID_ARGUMENT with their own status (decisions, "Envelope
# and errors"): a wrong method, a body over the endpoint's limit.
HTTP_LEVEL = frozenset({405, 413})


def envelope(ctx: Any, response: schemathesis.Response, case: Any) -> None:
    """A success is `{"result": …}` alone; a failure `{"error": {status, message[, details]}}`
    alone, with a known code whose HTTP status is the answer's."""
    body = _json(response)
    status = response.status_code
    if status == 200:
        assert isinstance(body, dict), body
        assert set(body) == {"result"}, f"a success has keys {sorted(body)}"
        return
    assert isinstance(body, dict), f"a {status} that is no envelope: {body!r:.200}"
    assert set(body) == {"error"}, f"a {status} failure has keys {sorted(body)}"
    error = body["error"]
    assert isinstance(error, dict), error
    assert {"status", "message"} <= set(error) <= {"status", "message", "details"}, error
    assert isinstance(error["message"], str), error
    assert error["message"], f"a {status} failure without a message"
    code = ERRORS_BY_CODE.get(error["status"])
    assert code is not None, f"unknown code {error['status']!r}"
    allowed = {code.http_status} | (HTTP_LEVEL if code is InvalidArgument else set())
    assert status in allowed, f"{error['status']} answered with HTTP {status}"


CHECKS = [
    no_server_error,
    envelope,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def unauthenticated(ctx: Any, response: schemathesis.Response, case: Any) -> None:
    """A caller without valid credentials learns only that: 401 UNAUTHENTICATED, or, when a
    credential header is absent, blank or not UTF-8, INVALID_ARGUMENT naming that header
    (decisions, "Envelope and errors"). Nothing about the body, nothing else."""
    body = _json(response)
    error = body.get("error", {}) if isinstance(body, dict) else {}
    if response.status_code == 400 and error.get("status") == "INVALID_ARGUMENT":
        paths = [issue["path"] for issue in error["details"]["issues"]]
        assert all(path.startswith("headers.") for path in paths), body
        return
    assert response.status_code == 401, f"{response.status_code} {body}"
    assert error.get("status") == "UNAUTHENTICATED", body


ANONYMOUS_CHECKS = [*CHECKS, unauthenticated]


class Credentials:
    """The headers each operation is called with: the API key's for API-key-level operations,
    the workspace's for workspace-level ones, none for the others. An operation may end the
    credentials it was given (a token reset, a key made inactive): an answer of 401 to them
    makes a fresh workspace for the calls that follow, and is counted."""

    def __init__(
        self, doc: dict[str, Any], api: ApiClient, loop: asyncio.AbstractEventLoop, ws: Workspace
    ) -> None:
        self.levels = {path: level for path, _, level in operations(doc)}
        self._api = api
        self._loop = loop
        self.workspace = ws
        self.renewed = 0

    def level(self, path: str) -> str:
        """The credentials `path` needs: "key", "workspace", or "" for none."""
        return self.levels.get(path, "")

    def headers(self, path: str) -> dict[str, str]:
        level = self.level(path)
        if level == "key":
            return self.workspace.key_headers
        if level == "workspace":
            return self.workspace.workspace_headers
        return {}

    def seen(self, path: str, response: schemathesis.Response) -> None:
        if response.status_code == 401 and self.level(path):
            self.workspace = self.run(self._api.create_workspace("fuzz@example.com"))
            self.renewed += 1

    def run(self, coroutine: Coroutine[Any, Any, Workspace]) -> Workspace:
        """Run `coroutine` on the test's loop, which serves the app while this thread fuzzes."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=60)


@dataclass
class Failure:
    operation: str
    message: str
    request: str


@dataclass
class Report:
    """What a run sent and what it found, printed beside a failing assertion."""

    statuses: dict[str, Counter[int]] = field(default_factory=dict)
    seconds: Counter[str] = field(default_factory=Counter)
    scenarios: int = 0  # stateful runs: sequences of calls begun
    failures: list[Failure] = field(default_factory=list)

    def record(self, path: str, status: int) -> None:
        self.statuses.setdefault(path, Counter())[status] += 1

    def fail(self, path: str, error: BaseException, case: Any) -> None:
        request = case.as_curl_command() if case is not None else ""
        self.failures.append(Failure(path, str(error)[:2000], request[:2000]))

    @property
    def examples(self) -> int:
        return sum(sum(counts.values()) for counts in self.statuses.values())

    def summary(self) -> str:
        lines = [f"{len(self.statuses)} operations, {self.examples} requests"]
        if self.scenarios:
            lines[0] += f" in {self.scenarios} sequences"
        for path, counts in sorted(self.statuses.items()):
            took = f" in {self.seconds[path]:.1f} s" if path in self.seconds else ""
            lines.append(f"  {path}: {dict(sorted(counts.items()))}{took}")
        for failure in self.failures:
            lines.append(f"FAILED {failure.operation}: {failure.message}\n  {failure.request}")
        return "\n".join(lines)


def each_operation(schema: Any, *, raw: bool = False) -> Iterator[Any]:
    """The envelope operations of `schema`, or with `raw` its raw routes."""
    for result in schema.get_all_operations():
        operation = result.ok()
        if is_raw(operation.definition.raw) == raw:
            yield operation


Call = Callable[[Any], schemathesis.Response]


def fuzz_operation(
    operation: Any,
    strategy: Any,
    send: Call,
    checks: list[Any],
    report: Report,
    examples: int,
    *,
    name: str | None = None,
) -> None:
    """Send `examples` cases drawn from `strategy` with `send`; record every answer and the
    first failure of a check, if any, with the request that caused it, under `name` (the
    operation's path unless given)."""
    path = name or operation.path
    last: list[Any] = [None]

    @hypothesis.seed(SEED)
    @settings(examples)
    @hypothesis.given(case=strategy)
    def run(case: Any) -> None:
        last[0] = case
        response = send(case)
        report.record(path, response.status_code)
        case.validate_response(response, checks=checks)

    started = time.monotonic()
    try:
        run()
    except (Exception, FailureGroup) as error:
        report.fail(path, error, last[0])
    report.seconds[path] += time.monotonic() - started


def sender(
    base_url: str, session: requests.Session, headers: Callable[[Any], dict[str, str]]
) -> Call:
    def send(case: Any) -> schemathesis.Response:
        response: schemathesis.Response = case.call(
            base_url=base_url, session=session, headers=headers(case), timeout=30
        )
        return response

    return send

"""Sending one webhook request and reporting what happened, without ever following the receiver
somewhere the address guard has not checked.

Every problem on the network or at the receiver becomes an `Outcome`, which delivery code records
and shows to the user; only programming errors raise. Outcomes never quote request headers (they
may carry credentials) nor the URL (per-execution URLs often carry tokens).
"""

from __future__ import annotations

import functools
import os
import re
import socket
import ssl
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Self

import aiohttp
import msgspec
from aiohttp.abc import AbstractResolver

from redline.webhooks.guard import AddressGuard, BlockedTarget, GuardedResolver

# Enough to let a well-behaved receiver finish its answer (so the connection can be reused),
# small enough that a hostile one cannot make a delivery read forever.
# What a header value may hold that this client sends: printable ASCII (a line break would end
# the header, and aiohttp refuses other control characters). Settings that end up in a header
# (a receiver's auth token) are checked against it when saved.
HEADER_VALUE_PATTERN = r"[\x20-\x7e]*"
_HEADER_VALUE = re.compile(HEADER_VALUE_PATTERN)


def is_header_value(text: str) -> bool:
    return _HEADER_VALUE.fullmatch(text) is not None


RESPONSE_READ_LIMIT = 64 * 1024

# A receiver's Location header is shown to the user; it has no business being long.
_LOCATION_SHOWN = 200


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """What came of one request. `ok` only for a 2xx answer; `status` whenever an answer came;
    `error` a short reason when not ok; `blocked` when the guard refused the target, which no
    retry can change."""

    ok: bool
    status: int | None
    latency_ms: float
    error: str | None
    blocked: bool = False


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    """An `Outcome` with what the answer said: its headers (names in lower case; of a repeated
    header, the last) and the start of its body. `truncated` when the body had more than was
    kept, or broke off. Empty when no answer came."""

    outcome: Outcome
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    body: bytes = b""
    truncated: bool = False


class WebhookClient:
    """One connection pool for webhook requests, with every target checked by `guard`: the URL
    before the request, and each address a host name resolves to before connecting.

    `timeout_s` bounds a whole request, connecting and reading included. `ca_file` adds trusted
    certificate authorities to the system's (for receivers with a private CA).
    `connections_per_host` caps simultaneous connections to one receiver (0: no cap).
    `resolver` looks host names up (the system resolver by default); its answers are checked.

    Use `async with WebhookClient(...) as client`, or `start()` and `close()`.
    """

    def __init__(
        self,
        guard: AddressGuard,
        *,
        timeout_s: float = 10.0,
        ca_file: str | None = None,
        connections_per_host: int = 0,
        user_agent: str = "Redline-Webhooks/1",
        resolver: AbstractResolver | None = None,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, not {timeout_s}")
        if connections_per_host < 0:
            raise ValueError(f"connections_per_host must be 0 or more, not {connections_per_host}")
        self._guard = guard
        self._timeout_s = timeout_s
        self._ca_file = ca_file
        self._connections_per_host = connections_per_host
        self._user_agent = user_agent
        self._resolver = resolver
        self._session: aiohttp.ClientSession | None = None

    @property
    def guard(self) -> AddressGuard:
        """The guard every request passes, for callers that hand a URL on to someone else."""
        return self._guard

    async def start(self) -> None:
        """Open the connection pool; needs the running event loop."""
        if self._session is not None:
            raise RuntimeError("WebhookClient is already started")
        if self._ca_file is None:
            tls = _system_trust()
        else:
            tls = ssl.create_default_context()
            tls.load_verify_locations(cafile=self._ca_file)
        connector = aiohttp.TCPConnector(
            resolver=GuardedResolver(self._guard, self._resolver),
            ssl=tls,
            # Callers bound concurrency themselves; waiting for a pool slot here would count
            # against a delivery's timeout and fail it for no fault of the receiver.
            limit=0,
            limit_per_host=self._connections_per_host,
        )
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(total=self._timeout_s),
            headers={"User-Agent": self._user_agent},
            # No proxy from the environment: a proxy would connect to addresses the guard never
            # saw. No cookies: one receiver's cookies must not reach another.
            trust_env=False,
            cookie_jar=aiohttp.DummyCookieJar(),
        )

    async def close(self) -> None:
        if self._session is not None:
            session, self._session = self._session, None
            await session.close()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Outcome:
        """POST `body` to `url` with `headers` (which override the User-Agent) and report how it
        went. Redirects are failures and are never followed: the new target was not checked."""
        reply = await self._exchange("POST", url, body, headers, None, read_limit=None)
        return reply.outcome

    async def request(
        self,
        method: str,
        url: str,
        body: bytes | None,
        headers: Mapping[str, str],
        *,
        timeout_s: float | None = None,
        read_limit: int = RESPONSE_READ_LIMIT,
    ) -> Reply:
        """Send one `method` request like `post` does, and keep the answer's headers and the
        first `read_limit` bytes of its body. `timeout_s` replaces the client's timeout for this
        request; `body` None sends none."""
        if timeout_s is not None and timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, not {timeout_s}")
        if read_limit < 0:
            raise ValueError(f"read_limit must be 0 or more, not {read_limit}")
        return await self._exchange(method, url, body, headers, timeout_s, read_limit=read_limit)

    async def _exchange(
        self,
        method: str,
        url: str,
        body: bytes | None,
        headers: Mapping[str, str],
        timeout_s: float | None,
        *,
        read_limit: int | None,
    ) -> Reply:
        """One request; the answer's body is kept up to `read_limit` bytes, or dropped (None)."""
        if self._session is None:
            raise RuntimeError("WebhookClient is not started")
        started = time.perf_counter()
        limit_s = self._timeout_s if timeout_s is None else timeout_s
        try:
            target = self._guard.check_url(url)
            async with self._session.request(
                method,
                target,
                data=body,
                headers=dict(headers),
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=limit_s),
            ) as response:
                if read_limit is None:
                    await _discard_body(response)
                    kept, truncated = b"", False
                else:
                    kept, truncated = await _read_body(response, read_limit)
        except (BlockedTarget, TimeoutError, OSError, aiohttp.ClientError) as exc:
            error, blocked = _no_answer(exc, limit_s)
            return Reply(outcome=_failed(started, error, blocked=blocked))
        answer = {name.lower(): value for name, value in response.headers.items()}
        outcome = _answered(response, started)
        return Reply(outcome=outcome, headers=answer, body=kept, truncated=truncated)


def _failed(
    started: float, error: str, status: int | None = None, *, blocked: bool = False
) -> Outcome:
    return Outcome(
        ok=False, status=status, latency_ms=_elapsed_ms(started), error=error, blocked=blocked
    )


def _no_answer(exc: Exception, limit_s: float) -> tuple[str, bool]:
    """Why a request got no answer, and whether the guard blocked its target."""
    if isinstance(exc, BlockedTarget):
        return f"blocked: {exc.reason}", True
    if isinstance(exc, TimeoutError):
        return f"timeout after {limit_s:g} s", False
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return f"TLS certificate rejected: {_certificate_problem(exc)}", False
    if isinstance(exc, aiohttp.ClientSSLError):
        return f"TLS handshake failed: {exc.os_error}", False
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"connection failed: {_describe_os_error(exc.os_error)}", False
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "connection failed: the receiver closed the connection", False
    if isinstance(exc, aiohttp.ClientResponseError):
        # Raised for an answer that is not valid HTTP; its message does not quote the URL.
        return f"invalid response: {exc.message}", False
    if isinstance(exc, OSError):  # such as a connection reset while sending
        return f"connection failed: {_describe_os_error(exc)}", False
    return f"connection failed: {type(exc).__name__}", False


def _answered(response: aiohttp.ClientResponse, started: float) -> Outcome:
    """What the receiver's status makes of the attempt: only a 2xx succeeds."""
    status = response.status
    if 200 <= status < 300:
        return Outcome(ok=True, status=status, latency_ms=_elapsed_ms(started), error=None)
    if 300 <= status < 400:
        location = response.headers.get("Location")
        reason = f"redirect not followed ({status})"
        if location is not None:
            reason = f"redirect not followed ({status} to {_shorten(location, _LOCATION_SHOWN)})"
        return _failed(started, reason, status)
    return _failed(started, f"HTTP {status}", status)


async def _read_body(response: aiohttp.ClientResponse, limit: int) -> tuple[bytes, bool]:
    """Up to `limit` bytes of the answer, and whether it had more (or broke off before its end).

    As with `_discard_body`, the status has already decided the outcome, so a body that fails
    half-way leaves what arrived and does not turn the answer into a failure.
    """
    chunks: list[bytes] = []
    remaining = limit
    try:
        while remaining > 0:
            chunk = await response.content.read(remaining)
            if not chunk:
                return b"".join(chunks), False
            chunks.append(chunk)
            remaining -= len(chunk)
        more = await response.content.read(1)
    except (aiohttp.ClientError, OSError, TimeoutError):
        return b"".join(chunks), True
    return b"".join(chunks), bool(more)


async def _discard_body(response: aiohttp.ClientResponse) -> None:
    """Read and drop up to RESPONSE_READ_LIMIT bytes of the answer.

    The status has already decided the outcome, so a body that breaks off or never ends does not
    change it; leaving the context closes a connection whose body was not read to the end.
    """
    remaining = RESPONSE_READ_LIMIT
    try:
        while remaining > 0:
            chunk = await response.content.read(remaining)
            if not chunk:
                return
            remaining -= len(chunk)
    except (aiohttp.ClientError, OSError, TimeoutError):
        return


@functools.cache
def _system_trust() -> ssl.SSLContext:
    """The system's trusted authorities, read once per process (some 25 ms) and shared by every
    client that trusts nothing else; nothing changes the context after it is made."""
    return ssl.create_default_context()


def _certificate_problem(exc: aiohttp.ClientConnectorCertificateError) -> str:
    error = exc.certificate_error
    if isinstance(error, ssl.SSLCertVerificationError) and error.verify_message:
        return str(error.verify_message)
    return str(error)


def _describe_os_error(error: OSError) -> str:
    """The system's words for `error`, without the addresses asyncio adds to its message."""
    if isinstance(error, socket.gaierror):
        return f"host name lookup failed ({error.strerror})"
    if error.errno is not None and error.errno > 0:
        return os.strerror(error.errno).lower()
    # Such as asyncio's summary after every address failed, which lists the addresses.
    return "no address of the host accepted the connection"


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000

"""Keeping one API key's permission provider from holding up everyone's access checks.

Every access check is answered inside `rpc.identity.access.check`, whose handler slots are shared
by all keys. So calls to a key's provider go through a circuit of that key (and that address):

- a pool of `concurrency` calls at once; a check beyond it waits at most `queue_wait_s` for a
  free call, then gets no access;
- a breaker: after `failures_to_open` failed calls in a row (no answer, a timeout, an unusable
  answer) the provider is not called for `cooldown_s`, and its checks get no access at once;
  then one check probes it (the others still get no access): a good answer closes the breaker,
  a failed one opens it for another cool-down.

So a hanging provider holds at most `concurrency` handler slots (each for the provider timeout)
until its breaker opens, and its other checks hold one for `queue_wait_s` at most.

Circuits live in memory, one per key and provider address (a changed address starts afresh);
at most `max_circuits`, idle ones forgotten first.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

log = logging.getLogger("redline.identity.provider")

CircuitKey = tuple[str, str]  # (API key, provider address)


class _Circuit:
    __slots__ = ("calls", "failures", "in_use", "open_until", "probing")

    def __init__(self, concurrency: int) -> None:
        self.calls = asyncio.Semaphore(concurrency)
        self.in_use = 0
        self.failures = 0
        self.open_until: float | None = None
        self.probing = False


class Lease:
    """The right to make one call; report how it went (a lease never reported counts as
    neither), then release it."""

    def __init__(
        self, circuits: ProviderCircuits, key: CircuitKey, circuit: _Circuit, *, probe: bool
    ) -> None:
        self._circuits = circuits
        self._key = key
        self._circuit = circuit
        self._probe = probe
        self._released = False

    def succeeded(self) -> None:
        circuit = self._circuit
        circuit.failures = 0
        if circuit.open_until is not None:
            log.info("permission provider of %s answers again: calling it again", self._key[0])
        circuit.open_until = None

    def failed(self) -> None:
        self._circuits.count_failure(self._key, self._circuit)

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        if self._probe:
            self._circuit.probing = False
        self._circuit.in_use -= 1
        self._circuit.calls.release()


class ProviderCircuits:
    def __init__(
        self,
        *,
        concurrency: int,
        queue_wait_s: float,
        failures_to_open: int,
        cooldown_s: float,
        max_circuits: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._concurrency = concurrency
        self._queue_wait_s = queue_wait_s
        self._failures_to_open = failures_to_open
        self._cooldown_s = cooldown_s
        self._max_circuits = max_circuits
        self._clock = clock
        self._circuits: dict[CircuitKey, _Circuit] = {}

    async def lease(self, key: CircuitKey) -> Lease | None:
        """A lease to call the provider, or None: do not call it, the answer is no access."""
        circuit = self._circuit(key)
        probe = circuit.open_until is not None
        if circuit.open_until is not None:
            if self._clock() < circuit.open_until or circuit.probing:
                return None
            circuit.probing = True  # half-open: this check finds out whether it is back
        if not await self._take_call(circuit):
            if probe:
                circuit.probing = False
            return None
        if not probe and circuit.open_until is not None:
            # The breaker opened while this check waited for a call.
            circuit.calls.release()
            return None
        circuit.in_use += 1
        return Lease(self, key, circuit, probe=probe)

    def count_failure(self, key: CircuitKey, circuit: _Circuit) -> None:
        circuit.failures += 1
        # Open already: a failed probe (or a call from before it opened) opens it afresh.
        already_open = circuit.open_until is not None
        if already_open or circuit.failures >= self._failures_to_open:
            if not already_open:
                log.warning(
                    "permission provider of %s failed %d times in a row: not calling it for %g s",
                    key[0],
                    circuit.failures,
                    self._cooldown_s,
                )
            circuit.open_until = self._clock() + self._cooldown_s

    async def _take_call(self, circuit: _Circuit) -> bool:
        if not circuit.calls.locked():
            await circuit.calls.acquire()
            return True
        if self._queue_wait_s <= 0:
            return False
        try:
            async with asyncio.timeout(self._queue_wait_s):
                await circuit.calls.acquire()
        except TimeoutError:
            return False
        return True

    def _circuit(self, key: CircuitKey) -> _Circuit:
        circuit = self._circuits.get(key)
        if circuit is None:
            if len(self._circuits) >= self._max_circuits:
                self._forget_idle()
            circuit = self._circuits[key] = _Circuit(self._concurrency)
        return circuit

    def _forget_idle(self) -> None:
        """Forget circuits with no call in flight: closed ones first, then open ones too (the
        calls in flight are bounded by the RPC handler's slots, so that always makes room)."""
        now = self._clock()
        idle = [k for k, c in self._circuits.items() if c.in_use == 0]
        closed = [
            k for k in idle if (until := self._circuits[k].open_until) is None or until <= now
        ]
        for k in closed or idle:
            del self._circuits[k]

"""What a caller is told when the infrastructure under its request fails."""

from __future__ import annotations

import asyncpg

from redline.bus.failures import infrastructure_error
from redline.pg import EventTooLarge


def test_an_event_too_large_is_the_requests_fault() -> None:
    answer = infrastructure_error(EventTooLarge("evt.comments.comment.add", 2 << 20))
    assert answer is not None
    assert answer.code == "INVALID_ARGUMENT"
    assert "too large" in answer.message


def test_a_transaction_aborted_for_a_concurrent_one_may_be_sent_again() -> None:
    for error in (asyncpg.DeadlockDetectedError("deadlock"), asyncpg.SerializationError("race")):
        answer = infrastructure_error(error)
        assert answer is not None
        assert answer.code == "ABORTED"
        assert "send it again" in answer.message


def test_other_failures_are_not_the_callers_to_know() -> None:
    assert infrastructure_error(RuntimeError("a bug")) is None
    assert infrastructure_error(asyncpg.UniqueViolationError("dup")) is None

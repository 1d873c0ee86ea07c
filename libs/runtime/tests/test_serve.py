"""The event loop a service runs on: uvloop by default, asyncio's on request, and a clear error
for anything else."""

from __future__ import annotations

import asyncio

import pytest
import uvloop

from redline.runtime.serve import new_event_loop
from redline.runtime.settings import SettingsError


@pytest.mark.parametrize(
    ("kind", "expected"), [("uvloop", uvloop.Loop), ("asyncio", asyncio.BaseEventLoop)]
)
def test_the_loop_is_the_one_asked_for(kind: str, expected: type) -> None:
    loop = new_event_loop(kind)
    try:
        assert isinstance(loop, expected)
        assert kind == "uvloop" or not isinstance(loop, uvloop.Loop)
    finally:
        loop.close()


def test_an_unknown_loop_is_a_settings_error_naming_the_variable() -> None:
    with pytest.raises(SettingsError, match="REDLINE_EVENT_LOOP: 'tokio'"):
        new_event_loop("tokio")

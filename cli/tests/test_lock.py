"""The data dir's lock: one owner at a time, and the owner's pid for whoever is turned away."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from redline.cli.lock import LOCK_FILE, DataDirInUse, DataDirLock


def test_a_held_data_dir_turns_the_next_one_away_naming_the_holder(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    lock = DataDirLock.acquire(data_dir)
    try:
        assert (data_dir / LOCK_FILE).read_text() == f"{os.getpid()}\n"
        with pytest.raises(DataDirInUse) as refused:
            DataDirLock.acquire(data_dir)
        assert refused.value.holder == os.getpid()
        assert str(data_dir) in str(refused.value)
        assert f"pid {os.getpid()}" in str(refused.value)
        # Being turned away leaves the holder's pid in place.
        assert (data_dir / LOCK_FILE).read_text() == f"{os.getpid()}\n"
    finally:
        lock.release()


def test_a_released_data_dir_can_be_taken_again(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    DataDirLock.acquire(data_dir).release()
    assert (data_dir / LOCK_FILE).read_text() == ""
    again = DataDirLock.acquire(data_dir)
    again.release()
    again.release()

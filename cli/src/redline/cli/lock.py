"""One owner per data directory: an exclusive lock on a file in it, held for the owner's life.

The owner is the only process that starts servers on the directory's stores, and so the only one
that may take a server found running there for a leftover and stop it. The kernel drops the
lock when its holder dies, however it dies, so a crash never leaves the directory locked.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

LOCK_FILE = "redline.lock"


class DataDirInUse(RuntimeError):
    def __init__(self, data_dir: Path, holder: int | None) -> None:
        who = f"pid {holder}" if holder is not None else "a process that has not written its pid"
        super().__init__(
            f"{data_dir} is in use by another redline process ({who}); stop that one first, "
            "or set REDLINE_DATA_DIR to another directory"
        )
        self.holder = holder


class DataDirLock:
    """Held from `acquire` to `release` (or this process's end); the holder's pid is in the
    lock file meanwhile, for whoever finds the directory taken."""

    def __init__(self, data_dir: Path, fd: int) -> None:
        self.data_dir = data_dir
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, data_dir: Path) -> DataDirLock:
        """Take the lock now, or raise `DataDirInUse` naming its holder."""
        data_dir.mkdir(parents=True, exist_ok=True)
        # Opened without truncating: until the lock is ours, the pid in it is the holder's.
        fd = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise DataDirInUse(data_dir, holder) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(data_dir, fd)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        # The file stays (removing it would race with a process opening it to lock); only the
        # pid goes, as it would name a process that no longer holds anything.
        os.ftruncate(fd, 0)
        os.close(fd)


def _holder(fd: int, wait_s: float = 1.0) -> int | None:
    # The holder writes its pid just after taking the lock: give it that moment.
    deadline = time.monotonic() + wait_s
    while True:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
        if text.isdigit():
            return int(text)
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)

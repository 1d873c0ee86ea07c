"""The blob store: whole files by key. The local one is a directory; an S3-compatible store can
take its place behind the same three calls.

Keys are made by the service (hex and `/` only), never taken from a client.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
from pathlib import Path
from typing import Protocol

_KEY = re.compile(r"^[0-9a-z_-]+(/[0-9a-z_.-]+)*$")


class BlobMissing(LookupError):
    pass


class BlobStore(Protocol):
    async def put(self, key: str, data: bytes) -> None:
        """Store `data` under `key` whole, or raise (OSError: a full disk) and store nothing."""

    async def get(self, key: str) -> bytes:
        """The bytes under `key`; BlobMissing when there are none."""

    async def delete(self, key: str) -> None:
        """Remove `key`; nothing happens when it is absent."""


class LocalBlobStore:
    def __init__(self, root: Path) -> None:
        self._root = root

    def _path(self, key: str) -> Path:
        if not _KEY.match(key) or ".." in key:
            raise ValueError(f"not a blob key: {key!r}")
        return self._root / key

    async def put(self, key: str, data: bytes) -> None:
        await asyncio.to_thread(self._put, self._path(key), data)

    async def get(self, key: str) -> bytes:
        try:
            return await asyncio.to_thread(self._path(key).read_bytes)
        except FileNotFoundError:
            raise BlobMissing(key) from None

    async def delete(self, key: str) -> None:
        path = self._path(key)
        await asyncio.to_thread(path.unlink, True)

    @staticmethod
    def _put(path: Path, data: bytes) -> None:
        # Written beside the target and renamed into place: a reader never sees half a file,
        # and a full disk leaves no partial blob behind.
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
        try:
            with partial.open("wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            partial.replace(path)
        except BaseException:
            with contextlib.suppress(OSError):
                partial.unlink()
            raise

"""The blob store: whole files by key. The local one is a directory; an S3-compatible store can
take its place behind the same calls (a streamed put is a multipart upload there).

Keys are made by the service (hex and `/` only), never taken from a client.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
from collections.abc import AsyncIterable, AsyncIterator
from pathlib import Path
from typing import BinaryIO, Protocol

_KEY = re.compile(r"^[0-9a-z_-]+(/[0-9a-z_.-]+)*$")


class BlobMissing(LookupError):
    pass


class BlobStore(Protocol):
    async def put(self, key: str, data: bytes) -> None:
        """Store `data` under `key` whole, or raise (OSError: a full disk) and store nothing."""

    async def put_stream(self, key: str, parts: AsyncIterable[bytes]) -> None:
        """Store the bytes `parts` yields under `key`, holding one part in memory at a time.
        If `parts` or the store raises, nothing is stored and the exception propagates."""

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
        await self.put_stream(key, _once(data))

    async def put_stream(self, key: str, parts: AsyncIterable[bytes]) -> None:
        # Written beside the target and renamed into place: a reader never sees half a file,
        # and a full disk or a refused body leaves no partial blob behind.
        path = self._path(key)
        partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
        out = await asyncio.to_thread(_open_partial, partial)
        try:
            async for part in parts:
                await asyncio.to_thread(out.write, part)
            await asyncio.to_thread(_close_into_place, out, partial, path)
        except BaseException:
            out.close()
            with contextlib.suppress(OSError):
                partial.unlink()
            raise

    async def get(self, key: str) -> bytes:
        try:
            return await asyncio.to_thread(self._path(key).read_bytes)
        except FileNotFoundError:
            raise BlobMissing(key) from None

    async def delete(self, key: str) -> None:
        path = self._path(key)
        await asyncio.to_thread(path.unlink, True)


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


def _open_partial(partial: Path) -> BinaryIO:
    partial.parent.mkdir(parents=True, exist_ok=True)
    return partial.open("wb")


def _close_into_place(out: BinaryIO, partial: Path, path: Path) -> None:
    with out:
        out.flush()
        os.fsync(out.fileno())
    partial.replace(path)

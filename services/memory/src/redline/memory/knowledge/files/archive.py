"""Zip-bomb checks on an XLSX's central directory, made before any member is decompressed."""

from __future__ import annotations

import zipfile
from typing import NoReturn

from redline.memory.knowledge.files.limits import Limits
from redline.memory.knowledge.files.rejection import FileRejected

MAX_MEMBERS = 10_000
MAX_RATIO = 100
# Below this a member is too small to hurt, whatever its ratio (XML compresses 20:1 and more).
RATIO_FLOOR_BYTES = 10 << 20


def check_archive(archive: zipfile.ZipFile, limits: Limits) -> None:
    """Raise `archive-too-large` if the directory declares more than we would inflate.

    The declared sizes bound the work: zipfile stops inflating a member at its declared size.
    """
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        _reject(f"the archive has {len(members)} members; at most {MAX_MEMBERS} are read")
    total = sum(member.file_size for member in members)
    if total > limits.max_uncompressed_bytes:
        _reject(
            f"the archive inflates to {total} bytes; at most "
            f"{limits.max_uncompressed_bytes} are read"
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > RATIO_FLOOR_BYTES and ratio > MAX_RATIO:
            _reject(
                f"member {member.filename!r} inflates {ratio:.0f} times to {member.file_size} bytes"
            )


def _reject(detail: str) -> NoReturn:
    raise FileRejected("archive-too-large", detail)

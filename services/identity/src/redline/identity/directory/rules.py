"""The pure rules of organizations, folders and documents: the root, access type inheritance,
folder depth and trees, checks on batch entries, and the per-item results of keyed answers.

Access types (see docs/decisions/identity.md): a folder either inherits (`access_type` NULL,
`inherit_from_parent` true) or has its own (`access_type` set, not inheriting). Its effective
access type is its parent's effective one when it inherits, the service default at the root, else
its own. A document's is its own, else its folder's effective one, else the default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

import msgspec

from redline.envelope.errors import (
    AlreadyExists,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
)
from redline.identity.directory.folders.models import Folder
from redline.identity.directory.models import ItemResult, KeyedResult
from redline.identity.fields import AccessType

ROOT = "root"  # the organization's root, wherever a folder id is expected
ACCESS_TYPES: tuple[AccessType, ...] = ("public", "organizationPrivate", "restricted")
# Folders nest at most this deep (a root folder is at depth 1): `ancestors` stays bounded.
MAX_FOLDER_DEPTH = 50
# Encoded size of one `metadata` object.
METADATA_MAX_BYTES = 16 * 1024

ALREADY_EXISTS = AlreadyExists.entry_code()
HELD = FailedPrecondition.entry_code()
NOT_FOUND = NotFound.entry_code()
INVALID = InvalidArgument.entry_code()


class AccessSetting(msgspec.Struct, frozen=True):
    """What a folder stores about its access: its own type, or inheritance."""

    access_type: AccessType | None
    inherit: bool


INHERIT = AccessSetting(None, True)


def folder_parent(value: str | None) -> str | None:
    """A folder id as the API takes it ("root", or absent, for the organization's root) as it is
    stored (None for the root)."""
    return None if value is None or value == ROOT else value


def effective_folder_access(
    setting: AccessSetting, parent_effective: AccessType | None, default: AccessType
) -> AccessType:
    """`parent_effective` None: the folder is at the organization's root."""
    if setting.inherit:
        return parent_effective if parent_effective is not None else default
    return setting.access_type if setting.access_type is not None else default


def effective_document_access(
    own: AccessType | None, folder_effective: AccessType | None, default: AccessType
) -> AccessType:
    if own is not None:
        return own
    return folder_effective if folder_effective is not None else default


def resolve_access_setting(
    access_type: AccessType | None, inherit: bool | None, current: AccessType
) -> AccessSetting | None:
    """The setting a request asks for; None when it asks for neither. `current` is what applies
    to the folder now (what it would inherit, for a new folder).

    `inheritFromParent: true` wins over an `accessType` sent with it: the hosted product's
    callers always send one. `inheritFromParent: false` alone keeps what applies now as the
    folder's own type, so stopping inheritance changes nobody's access.
    """
    if inherit:
        return INHERIT
    if access_type is not None:
        return AccessSetting(access_type, False)
    if inherit is False:
        return AccessSetting(current, False)
    return None


def depth_allows(ancestor_count: int, subtree_height: int) -> bool:
    """Whether a folder with `ancestor_count` ancestors and `subtree_height` levels of
    subfolders under it stays within MAX_FOLDER_DEPTH."""
    return ancestor_count + 1 + subtree_height <= MAX_FOLDER_DEPTH


def build_tree(folders: Iterable[Folder]) -> list[Folder]:
    """Nest folders under their parents (`subFolders`); those whose parent is not among them are
    returned, oldest first. Children are ordered the same way."""
    ordered = sorted(folders, key=lambda f: (f.createdAt, f.folderId))
    by_id = {f.folderId: f for f in ordered}
    children: dict[str, list[Folder]] = {}
    tops: list[Folder] = []
    for folder in ordered:
        if folder.parentFolderId in by_id and folder.parentFolderId != folder.folderId:
            children.setdefault(folder.parentFolderId, []).append(folder)
        else:
            tops.append(folder)
    for folder in ordered:
        folder.subFolders = children.get(folder.folderId)
    return tops


def check_unique(
    ids: Iterable[str], path: str, repeated: str = "Id {!r} appears more than once."
) -> None:
    """Results are keyed by id, so one request names each id once. `path` has a `{}` for the
    index of the repeated entry, `repeated` one for the id."""
    seen: set[str] = set()
    for index, item in enumerate(ids):
        if item in seen:
            raise InvalidArgument.field(path.format(index), repeated.format(item))
        seen.add(item)


def check_metadata(metadata: Mapping[str, Any] | None, path: str) -> None:
    if metadata is None:
        return
    if len(msgspec.json.encode(metadata)) > METADATA_MAX_BYTES:
        raise InvalidArgument.field(
            path, f"Metadata may take at most {METADATA_MAX_BYTES} bytes as JSON.", "invalid_length"
        )


class _WithMetadata(Protocol):
    @property
    def metadata(self) -> Mapping[str, Any] | None: ...


def check_entries(
    field: str, ids: Sequence[str], id_name: str, items: Sequence[_WithMetadata]
) -> None:
    """The entries of a batch request, `data.<field>`: each id (`<id_name>`) named once, each
    `metadata` within its size."""
    check_unique(ids, f"data.{field}[{{}}].{id_name}")
    for index, item in enumerate(items):
        check_metadata(item.metadata, f"data.{field}[{index}].metadata")


def check_not_root(folder_id: str, path: str) -> None:
    if folder_id == ROOT:
        raise InvalidArgument.field(path, f"{ROOT!r} names the organization's root, not a folder.")


def succeeded(item_id: str, message: str) -> ItemResult:
    return ItemResult(success=True, id=item_id, message=message)


def failed(item_id: str, message: str, code: str) -> ItemResult:
    return ItemResult(success=False, id=item_id, message=message, code=code)


def raise_if_any_failed(results: Mapping[str, KeyedResult], what: str) -> None:
    """The partial-failure envelope: INTERNAL, with the whole keyed result in `details` (the
    failed entries carry `code`). Call it after the commit: the entries that succeeded stay."""
    failures = sum(1 for result in results.values() if not result.success)
    if failures:
        raise Internal(
            f"{failures} of {len(results)} {what} failed; the others succeeded.",
            details=cast("dict[str, Any]", msgspec.to_builtins(results)),
        )


def raise_if_any_missing(
    ids: Sequence[str], listed: Mapping[str, Any], existing: set[str], what: str, missing: str
) -> None:
    """A lookup by ids where some do not exist: INTERNAL, with `details` keyed by the ids in the
    order asked, each the item as given in `listed` (by id) or a `not-found` entry.
    Ids that exist but the answer leaves out (another folder, another page) stay out."""
    absent = [item_id for item_id in ids if item_id not in existing]
    if not absent:
        return
    details: dict[str, Any] = {}
    for item_id in ids:
        if item_id in listed:
            details[item_id] = listed[item_id]
        elif item_id not in existing:
            details[item_id] = msgspec.to_builtins(failed(item_id, missing, NOT_FOUND))
    raise Internal(
        f"{len(absent)} of {len(ids)} {what} do not exist; the others are in details.",
        details=details,
    )

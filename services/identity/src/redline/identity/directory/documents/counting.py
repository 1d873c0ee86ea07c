"""Counting an organization's documents: /v2/organizations/documents/count/get.

- `folderId` counts the documents directly in that folder ("root": those in no folder);
  `excludeFolderDocs` leaves out every document that is in a folder.
- `filters` narrow the count by the documents' metadata, all of them together (AND). A key names
  a metadata field, or a dotted path into nested objects (`metadata.` in front is dropped).
  `==`, `!=`, `<`, `<=`, `>`, `>=` compare with one value (the range operators only values of the
  same JSON type); `in`, `not-in` and `array-contains-any` take a list of 1 to 30 values;
  `array-contains` matches a metadata list holding the value. `!=` and `not-in` match only
  documents that have the field. The answer then says `filtersApplied: true`: Redline never
  falls back to an unfiltered count.
- `filters` together with `excludeFolderDocs` is refused, as the hosted product refuses it.
"""

from __future__ import annotations

from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity import errors
from redline.identity.caller import require_key_caller
from redline.identity.directory.documents import models, storage
from redline.identity.directory.folders import storage as folders_storage
from redline.identity.directory.rules import folder_parent
from redline.identity.directory.storage import organization_exists
from redline.pg import Pool

_LIST_OPERATORS = frozenset({"in", "not-in", "array-contains-any"})
_METADATA_PREFIX = "metadata."


def metadata_filters(filters: list[models.DocumentFilter]) -> list[storage.MetadataFilter]:
    """The filters as the count query takes them, or INVALID_ARGUMENT naming the bad one."""
    checked = []
    for i, f in enumerate(filters):
        path = f.key.removeprefix(_METADATA_PREFIX).split(".")
        if not all(path):
            raise InvalidArgument.field(f"data.filters[{i}].key", "Invalid metadata key.")
        if f.operator in _LIST_OPERATORS and not (
            isinstance(f.value, list) and 1 <= len(f.value) <= models.FILTER_VALUES_MAX
        ):
            raise InvalidArgument.field(
                f"data.filters[{i}].value",
                f"{f.operator} needs a list of 1 to {models.FILTER_VALUES_MAX} values.",
            )
        checked.append(storage.MetadataFilter(path, f.operator, f.value))
    return checked


async def count_documents(
    pool: Pool, caller: ApiKeyPrincipal, request: models.CountDocuments
) -> models.DocumentCount:
    require_key_caller(caller)
    if request.filters is not None and request.excludeFolderDocs:
        raise InvalidArgument.field(
            "data.filters", "filters cannot be combined with excludeFolderDocs."
        )
    filters = metadata_filters(request.filters or [])
    org_id = request.organizationId
    async with pool.acquire() as conn, conn.transaction(readonly=True):
        if not await organization_exists(conn, caller.api_key, org_id):
            raise errors.organization_not_found()
        folder = None
        if request.folderId is not None:
            folder_id = folder_parent(request.folderId)
            if folder_id is not None and not await folders_storage.get_folder(
                conn, caller.api_key, org_id, folder_id
            ):
                raise errors.folder_not_found()
            folder = storage.FolderFilter(folder_id)
        count = await storage.count_documents(
            conn, caller.api_key, org_id, folder, request.excludeFolderDocs, filters
        )
    return models.DocumentCount(
        count=count, filtersApplied=True if request.filters is not None else None
    )

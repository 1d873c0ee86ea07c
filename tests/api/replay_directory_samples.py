"""The reference's example requests for organizations, folders, documents, users, user groups
and personal data, in an order that lets later examples find what earlier ones made (the users,
user groups and personal data examples are in replay_directory_people_samples)."""

from __future__ import annotations

from tests.api.replay_directory_people_samples import (
    PERSONAL_DATA,
    USER_GROUPS,
    USER_REMOVALS,
    USERS,
)
from tests.api.replay_support import Sample

ORGANIZATIONS = [
    Sample(
        page="organizations/add: add organization",
        path="/v2/organizations/add",
        data={
            "organizations": [
                {
                    "organizationId": "yourOrganizationId",
                    "organizationName": "Your Organization Name",
                }
            ]
        },
        fields=("data.yourOrganizationId.success", "data.yourOrganizationId.id"),
    ),
    Sample(
        page="organizations/update",
        path="/v2/organizations/update",
        data={
            "organizations": [
                {
                    "organizationId": "yourOrganizationId",
                    "organizationName": "Your Updated Organization Name",
                }
            ]
        },
        fields=("data.yourOrganizationId.success",),
    ),
    Sample(
        # The page's token is a placeholder; a token Redline never issued is refused.
        page="organizations/get",
        path="/v2/organizations/get",
        data={
            "organizationIds": ["yourOrganizationId"],
            "pageSize": 1000,
            "pageToken": "pageToken",
        },
        expect="INVALID_ARGUMENT",
    ),
    Sample(
        page="organizations/get without the placeholder token",
        path="/v2/organizations/get",
        data={"organizationIds": ["yourOrganizationId"], "pageSize": 1000},
        fields=("data.0.id", "data.0.organizationName"),
    ),
    Sample(
        page="organizations/access/disablestate/update",
        path="/v2/organizations/access/disablestate/update",
        data={"organizationIds": ["yourOrganizationId1", "yourOrganizationId2"], "disabled": True},
        fields=("data.yourOrganizationId1.success", "data.yourOrganizationId2.success"),
    ),
    Sample(
        page="organizations/delete: delete specific organization",
        path="/v2/organizations/delete",
        data={"organizationIds": ["yourOrganizationId1", "yourOrganizationId2"]},
    ),
]


FOLDERS = [
    Sample(
        # Example 1 names a parent folder; a customer makes it first, with example 2's shape.
        page="folders/add: the parent folder example 1 names",
        path="/v2/organizations/folders/add",
        data={
            "organizationId": "yourOrganizationId",
            "folders": [{"folderId": "yourParentFolderId", "folderName": "yourParentFolderName"}],
        },
        fields=("data.yourParentFolderId.success", "data.yourParentFolderId.id"),
    ),
    Sample(
        page="folders/add: create folder without access type",
        path="/v2/organizations/folders/add",
        data={
            "organizationId": "yourOrganizationId",
            "folders": [
                {
                    "folderId": "yourFolderId",
                    "folderName": "yourFolderName",
                    "parentFolderId": "yourParentFolderId",
                }
            ],
        },
        fields=("data.yourFolderId.success", "data.yourFolderId.id", "data.yourFolderId.message"),
    ),
    Sample(
        page="folders/add: create folder with restricted access type",
        path="/v2/organizations/folders/add",
        data={
            "organizationId": "yourOrganizationId",
            "folders": [
                {"folderId": "folder2025", "folderName": "folder2025", "accessType": "restricted"}
            ],
        },
        fields=("data.folder2025.success", "data.folder2025.id"),
    ),
    Sample(
        page="folders/get: get all folders in organization",
        path="/v2/organizations/folders/get",
        data={"organizationId": "yourOrganizationId"},
        fields=(
            "data.0.folderId",
            "data.0.folderName",
            "data.0.organizationId",
            "data.0.parentFolderId",
            "data.0.apiKey",
            "data.0.createdAt",
            "data.0.lastUpdated",
            "data.0.ancestors",
            "data.0.accessType",
            "data.0.inheritAccessFromParent",
        ),
    ),
    Sample(
        page="folders/get: get specific folder in an organization",
        path="/v2/organizations/folders/get",
        data={"organizationId": "yourOrganizationId", "folderId": "yourFolderId"},
        fields=(
            "data.0.folderId",
            "data.0.parentFolderId",
            "data.0.ancestors.1",
            "data.0.accessType",
            "data.0.inheritAccessFromParent",
        ),
    ),
    Sample(
        page="folders/get: the parent folder, with its subfolder",
        path="/v2/organizations/folders/get",
        data={"organizationId": "yourOrganizationId", "folderId": "yourParentFolderId"},
        fields=(
            "data.0.folderId",
            "data.0.subFolders.0.folderId",
            "data.0.subFolders.0.ancestors.1",
            "data.0.subFolders.0.inheritAccessFromParent",
        ),
    ),
    Sample(
        page="folders/get: get folder with nested subfolders at specific depth",
        path="/v2/organizations/folders/get",
        data={"organizationId": "yourOrganizationId", "folderId": "yourFolderId", "maxDepth": 3},
        fields=("data.0.folderId", "data.0.ancestors.1", "data.0.inheritAccessFromParent"),
    ),
    Sample(
        page="folders/update",
        path="/v2/organizations/folders/update",
        data={
            "organizationId": "yourOrganizationId",
            "folders": [
                {
                    "folderId": "yourFolderId",
                    "folderName": "yourFolderName",
                    "parentFolderId": "yourParentFolderId",
                }
            ],
        },
        fields=("data.yourFolderId.success", "data.yourFolderId.id"),
    ),
    Sample(
        # The page's one id "yourFolderId1, yourFolderId2" names no folder: a per-id not-found,
        # which the reference's keyed maps report as a partial failure (INTERNAL).
        page="folders/access/update: update folder access type",
        path="/v2/organizations/folders/access/update",
        data={
            "organizationId": "yourOrganizationId",
            "folderIds": ["yourFolderId1, yourFolderId2"],
            "accessType": "organizationPrivate",
        },
        expect="INTERNAL",
    ),
    Sample(
        # No folder "yourFolderId1" was made: a per-id not-found again.
        page="folders/access/update: configure folder to inherit access from parent",
        path="/v2/organizations/folders/access/update",
        data={
            "organizationId": "yourOrganizationId",
            "folderIds": ["yourFolderId1"],
            "inheritFromParent": True,
        },
        expect="INTERNAL",
    ),
    Sample(
        page="folders/access/update: the same for the folder the add example made",
        path="/v2/organizations/folders/access/update",
        data={
            "organizationId": "yourOrganizationId",
            "folderIds": ["yourFolderId"],
            "inheritFromParent": True,
        },
        fields=(
            "data.yourFolderId.success",
            "data.yourFolderId.accessType",
            "data.yourFolderId.inheritFromParent",
        ),
    ),
    Sample(
        # The page's organization "org10" was never added.
        page="folders/delete",
        path="/v2/organizations/folders/delete",
        data={"organizationId": "org10", "folderId": "folderId2"},
        expect="NOT_FOUND",
    ),
]

DOCUMENTS = [
    Sample(
        page="documents/add: create new documents",
        path="/v2/organizations/documents/add",
        data={
            "organizationId": "yourOrganizationId",
            "documents": [{"documentId": "yourDocumentId", "documentName": "Your Document Name"}],
        },
        fields=("data.yourDocumentId.success", "data.yourDocumentId.id"),
    ),
    Sample(
        # The same document id again: the reference's partial failure, `already-exists`.
        page="documents/add: create new documents in a specific folder",
        path="/v2/organizations/documents/add",
        data={
            "organizationId": "yourOrganizationId",
            "documents": [{"documentId": "yourDocumentId", "documentName": "Your Document Name"}],
            "folderId": "yourFolderId",
        },
        expect="INTERNAL",
    ),
    Sample(
        # The page's token is a placeholder; a token Redline never issued is refused.
        page="documents/get: get all documents from organization",
        path="/v2/organizations/documents/get",
        data={
            "organizationId": "yourOrganizationId",
            "pageSize": 20,
            "pageToken": "8740648311207869",
        },
        expect="INVALID_ARGUMENT",
    ),
    Sample(
        page="documents/get: all documents without the placeholder token",
        path="/v2/organizations/documents/get",
        data={"organizationId": "yourOrganizationId", "pageSize": 20},
        fields=("data.0.id", "data.0.documentName", "data.0.disabled", "data.0.accessType"),
    ),
    Sample(
        # Neither document exists: the reference's partial failure, `not-found` per id.
        page="documents/get: get specific documents from organization",
        path="/v2/organizations/documents/get",
        data={
            "organizationId": "yourOrganizationId",
            "documentIds": ["yourDocumentId1", "yourDocumentId2"],
        },
        expect="INTERNAL",
    ),
    Sample(
        page="documents/get: get documents by organizationId, folderId",
        path="/v2/organizations/documents/get",
        data={"organizationId": "yourOrganizationId", "folderId": "yourFolderId"},
        fields=("data",),
    ),
    Sample(
        page="documents/update",
        path="/v2/organizations/documents/update",
        data={
            "organizationId": "yourOrganizationId",
            "documents": [{"documentId": "yourDocumentId", "documentName": "Your Document Name"}],
        },
        fields=("data.yourDocumentId.success", "data.yourDocumentId.id"),
    ),
    Sample(
        # The page's one id "yourDocumentId1, yourDocumentId2" names no document.
        page="documents/access/update",
        path="/v2/organizations/documents/access/update",
        data={
            "organizationId": "yourOrganizationId",
            "documentIds": ["yourDocumentId1, yourDocumentId2"],
            "accessType": "organizationPrivate",
        },
        expect="INTERNAL",
    ),
    Sample(
        # The target folder "targetFolderId" was never made: the whole request is NOT_FOUND.
        page="documents/move",
        path="/v2/organizations/documents/move",
        data={
            "organizationId": "yourOrganizationId",
            "documentIds": ["yourDocumentId1", "yourDocumentId2"],
            "folderId": "targetFolderId",
        },
        expect="NOT_FOUND",
    ),
    Sample(
        # Neither document exists: a per-id `not-found`, the reference's partial failure.
        page="documents/delete",
        path="/v2/organizations/documents/delete",
        data={
            "organizationId": "yourOrganizationId",
            "documentIds": ["yourDocumentId1", "yourDocumentId2"],
        },
        expect="INTERNAL",
    ),
]


DOCUMENT_STATE = [
    # Last, since a disabled document takes no new members and a migrated one leaves its id.
    Sample(
        page="documents/access/disablestate/update",
        path="/v2/organizations/documents/access/disablestate/update",
        data={
            "organizationId": "yourOrganizationId",
            "documentIds": ["yourDocumentId"],
            "disabled": True,
        },
        fields=("data.yourDocumentId.success", "data.yourDocumentId.disabled"),
    ),
    Sample(
        page="documents/access/disablestate/update: enabled again, to migrate it",
        path="/v2/organizations/documents/access/disablestate/update",
        data={
            "organizationId": "yourOrganizationId",
            "documentIds": ["yourDocumentId"],
            "disabled": False,
        },
        fields=("data.yourDocumentId.success", "data.yourDocumentId.disabled"),
    ),
    Sample(
        page="documents/migrate: migrate a document to a new document ID",
        path="/v2/organizations/documents/migrate",
        data={
            "organizationId": "yourOrganizationId",
            "documentId": "yourDocumentId",
            "newDocumentId": "yourNewDocumentId",
        },
        fields=("data.migrationId",),
        save={"migrationId": "data.migrationId"},
    ),
    Sample(
        # "yourMigrationId" stands for the id the migrate example answered.
        page="documents/migrate/status: check migration status",
        path="/v2/organizations/documents/migrate/status",
        data={"organizationId": "yourOrganizationId", "migrationId": "$migrationId"},
        fields=("data.migrationId", "data.status"),
    ),
]

SAMPLES = [
    *ORGANIZATIONS,
    *FOLDERS,
    *DOCUMENTS,
    *USERS,
    *USER_GROUPS,
    *USER_REMOVALS,
    *PERSONAL_DATA,
    *DOCUMENT_STATE,
]

"""The official SDK's organization, folder, document, user and access-control methods, chained
against Redline as a customer's server would call them (only the base URL changed)."""

from __future__ import annotations

import asyncio

import pytest
from velt_py.models import (
    AddDocumentsRequest,
    AddFolderRequest,
    AddOrganizationsRequest,
    AddPermissionsRequest,
    AddUsersRequest,
    DeleteDocumentsRequest,
    DeleteFolderRequest,
    DeleteOrganizationsRequest,
    DeleteUsersRequest,
    GenerateTokenRequest,
    GetDocumentsRequest,
    GetFoldersRequest,
    GetOrganizationsRequest,
    GetPermissionsRequest,
    GetUsersRequest,
    MigrateDocumentsRequest,
    MigrateDocumentsStatusRequest,
    MoveDocumentsRequest,
    RemovePermissionsRequest,
    UpdateDocumentAccessRequest,
    UpdateDocumentsRequest,
    UpdateFolderAccessRequest,
    UpdateFolderRequest,
    UpdateOrganizationsRequest,
    UpdateUsersRequest,
)

from redline.testing.api import ApiClient, StartApi
from tests.api.sdk_support import Sdk, sdk_for


@pytest.fixture
async def sdk(
    target_url: str | None, start_api: StartApi, api: ApiClient, monkeypatch: pytest.MonkeyPatch
) -> Sdk:
    return await sdk_for(target_url, start_api, api, monkeypatch)


async def test_organizations_round_trip(sdk: Sdk) -> None:
    orgs = sdk.api.organizations
    added = await sdk.ok(
        orgs.addOrganizations,
        AddOrganizationsRequest(
            organizations=[{"organizationId": "acme", "organizationName": "Acme"}]
        ),
    )
    assert added is not None
    await sdk.ok(
        orgs.updateOrganizations,
        UpdateOrganizationsRequest(
            organizations=[{"organizationId": "acme", "organizationName": "Acme Inc"}]
        ),
    )
    got = await sdk.ok(orgs.getOrganizations, GetOrganizationsRequest(organizationIds=["acme"]))
    assert [(o["id"], o["organizationName"]) for o in got] == [("acme", "Acme Inc")]
    await sdk.ok(orgs.deleteOrganizations, DeleteOrganizationsRequest(organizationIds=["acme"]))
    assert (
        await sdk.ok(orgs.getOrganizations, GetOrganizationsRequest(organizationIds=["acme"])) == []
    )


async def test_folders_and_documents(sdk: Sdk) -> None:
    folders, documents = sdk.api.folders, sdk.api.documents
    await sdk.ok(
        folders.addFolder,
        AddFolderRequest(
            organizationId="acme",
            folders=[{"folderId": "legal", "folderName": "Legal"}],
            createOrganization=True,
        ),
    )
    await sdk.ok(
        folders.updateFolder,
        UpdateFolderRequest(
            organizationId="acme", folders=[{"folderId": "legal", "folderName": "Legal team"}]
        ),
    )
    await sdk.ok(
        folders.updateFolderAccess,
        UpdateFolderAccessRequest(
            organizationId="acme", folderIds=["legal"], accessType="restricted"
        ),
    )
    tree = await sdk.ok(folders.getFolders, GetFoldersRequest(organizationId="acme"))
    assert "legal" in str(tree)

    await sdk.ok(
        documents.addDocuments,
        AddDocumentsRequest(
            organizationId="acme",
            documents=[{"documentId": "contract", "documentName": "Contract"}],
            folderId="legal",
        ),
    )
    await sdk.ok(
        documents.updateDocuments,
        UpdateDocumentsRequest(
            organizationId="acme",
            documents=[{"documentId": "contract", "documentName": "Contract v2"}],
        ),
    )
    await sdk.ok(
        documents.updateDocumentAccess,
        UpdateDocumentAccessRequest(
            organizationId="acme", documentIds=["contract"], accessType="organizationPrivate"
        ),
    )
    await sdk.ok(
        folders.addFolder,
        AddFolderRequest(organizationId="acme", folders=[{"folderId": "archive"}]),
    )
    await sdk.ok(
        documents.moveDocuments,
        MoveDocumentsRequest(organizationId="acme", documentIds=["contract"], folderId="archive"),
    )
    got = await sdk.ok(
        documents.getDocuments, GetDocumentsRequest(organizationId="acme", documentIds=["contract"])
    )
    assert [(d["id"], d["documentName"], d["folderId"]) for d in got] == [
        ("contract", "Contract v2", "archive")
    ]

    migration = await sdk.ok(
        documents.migrateDocuments,
        MigrateDocumentsRequest(
            organizationId="acme", documentId="contract", newDocumentId="contract-2"
        ),
    )
    # The migration runs in the background: the document is deleted under its new id once it
    # has moved, as a customer polling the status would.
    asking = MigrateDocumentsStatusRequest(
        organizationId="acme", migrationId=migration["migrationId"]
    )
    for _ in range(200):
        status = await sdk.ok(documents.migrateDocumentsStatus, asking)
        assert status["migrationId"] == migration["migrationId"]
        if status["status"] == "completed":
            break
        await asyncio.sleep(0.05)
    assert status["status"] == "completed", status

    await sdk.ok(
        documents.deleteDocuments,
        DeleteDocumentsRequest(organizationId="acme", documentIds=["contract-2"]),
    )
    await sdk.ok(folders.deleteFolder, DeleteFolderRequest(organizationId="acme", folderId="legal"))


async def test_users_permissions_and_tokens(sdk: Sdk) -> None:
    users, access = sdk.api.users, sdk.api.accessControl
    await sdk.ok(
        users.addUsers,
        AddUsersRequest(
            organizationId="acme",
            users=[{"userId": "ana", "name": "Ana", "email": "ana@example.com"}],
            createOrganization=True,
            context={"source": "directory sync"},
        ),
    )
    await sdk.ok(
        users.updateUsers,
        UpdateUsersRequest(organizationId="acme", users=[{"userId": "ana", "name": "Ana B."}]),
    )
    listed = await sdk.ok(users.getUsers, GetUsersRequest(organizationId="acme", userIds=["ana"]))
    assert [(u["userId"], u["name"]) for u in listed] == [("ana", "Ana B.")]

    await sdk.ok(
        access.addPermissions,
        AddPermissionsRequest(
            user={"userId": "ana"},
            permissions={
                "resources": [
                    {
                        "type": "document",
                        "id": "contract",
                        "organizationId": "acme",
                        "accessRole": "viewer",
                    }
                ]
            },
        ),
    )
    granted = await sdk.ok(
        access.getPermissions,
        GetPermissionsRequest(organizationId="acme", userIds=["ana"], documentIds=["contract"]),
    )
    assert "ana" in granted
    token = await sdk.ok(
        access.generateToken,
        GenerateTokenRequest(userId="ana", userProperties={"organizationId": "acme"}),
    )
    assert token["token"]
    await sdk.ok(
        access.removePermissions,
        RemovePermissionsRequest(
            userId="ana",
            permissions={
                "resources": [{"type": "document", "id": "contract", "organizationId": "acme"}]
            },
        ),
    )
    await sdk.ok(
        users.deleteUsers,
        DeleteUsersRequest(organizationId="acme", userIds=["ana"], context={"reason": "left"}),
    )
    assert (
        await sdk.ok(users.getUsers, GetUsersRequest(organizationId="acme", userIds=["ana"])) == []
    )

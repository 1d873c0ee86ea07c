"""Organizations, folders and documents against a real database, where the HTTP API cannot look:
users' grants going with what is deleted, events in the outbox, and folders following a change
of the default access type setting."""

from __future__ import annotations

from redline.envelope import PageTokens
from redline.envelope.auth import ApiKeyPrincipal
from redline.identity.directory.documents import models as document_models
from redline.identity.directory.documents.service import DocumentService
from redline.identity.directory.folders import models as folder_models
from redline.identity.directory.folders.service import FolderService
from redline.identity.directory.organizations import models as organization_models
from redline.identity.directory.organizations.service import OrganizationService
from redline.identity.fields import AccessType
from redline.pg import Pool

KEY = ApiKeyPrincipal(workspace_id="ws-1", api_key="key-1")
PAGES = PageTokens(b"k" * 32)


async def grant(pool: Pool, org: str, resource_type: str, resource_id: str) -> None:
    await pool.execute(
        "INSERT INTO identity.access_grant (api_key, organization_id, user_id, resource_type,"
        " resource_id, access_role) VALUES ($1, $2, 'u1', $3, $4, 'editor')",
        KEY.api_key,
        org,
        resource_type,
        resource_id,
    )


async def grants(pool: Pool) -> set[tuple[str, str, str]]:
    rows = await pool.fetch(
        "SELECT organization_id, resource_type, resource_id FROM identity.access_grant"
    )
    return {(r["organization_id"], r["resource_type"], r["resource_id"]) for r in rows}


async def outbox_types(pool: Pool) -> list[str]:
    rows = await pool.fetch("SELECT subject FROM identity.outbox ORDER BY seq")
    return [r["subject"].removeprefix("evt.") for r in rows]


async def seed(pool: Pool, default: AccessType = "public") -> None:
    folders = FolderService(pool, PAGES, default)
    documents = DocumentService(pool, PAGES, default)
    for org in ("acme", "globex"):
        await folders.add(
            KEY,
            folder_models.AddFolders(
                organizationId=org,
                createOrganization=True,
                folders=[
                    folder_models.NewFolder(folderId="a"),
                    folder_models.NewFolder(folderId="b", parentFolderId="a"),
                    folder_models.NewFolder(folderId="c", parentFolderId="b"),
                ],
            ),
        )
        for folder_id, doc in (("a", "in-a"), ("b", "in-b"), ("c", "in-c"), ("root", "loose")):
            await documents.add(
                KEY,
                document_models.AddDocuments(
                    organizationId=org,
                    folderId=folder_id,
                    documents=[document_models.NewDocument(documentId=doc)],
                ),
            )
        await grant(pool, org, "organization", org)
        for folder_id in "abc":
            await grant(pool, org, "folder", folder_id)
        for doc in ("in-a", "in-b", "in-c", "loose"):
            await grant(pool, org, "document", doc)


async def test_deleting_a_folder_removes_grants_on_its_subtree_and_documents(pool: Pool) -> None:
    await seed(pool)

    await FolderService(pool, PAGES, "public").delete(
        KEY, folder_models.DeleteFolder(organizationId="acme", folderId="b")
    )

    gone = {
        ("acme", "folder", "b"),
        ("acme", "folder", "c"),
        ("acme", "document", "in-b"),
        ("acme", "document", "in-c"),
    }
    remaining = await grants(pool)
    assert not remaining & gone
    assert ("acme", "folder", "a") in remaining
    assert ("acme", "document", "in-a") in remaining
    assert ("acme", "organization", "acme") in remaining
    assert ("globex", "folder", "b") in remaining
    assert ("globex", "document", "in-c") in remaining
    assert (await outbox_types(pool))[-2:] == [
        "identity.folder.deleted",
        "identity.access.changed",
    ]


async def test_deleting_documents_removes_grants_on_them_only(pool: Pool) -> None:
    await seed(pool)

    await DocumentService(pool, PAGES, "public").delete(
        KEY, document_models.DocumentIds(organizationId="acme", documentIds=["loose", "in-c"])
    )

    remaining = await grants(pool)
    assert ("acme", "document", "loose") not in remaining
    assert ("acme", "document", "in-c") not in remaining
    assert ("acme", "folder", "c") in remaining
    assert ("globex", "document", "loose") in remaining


async def test_deleting_an_organization_removes_every_grant_in_it(pool: Pool) -> None:
    await seed(pool)

    await OrganizationService(pool, PAGES).delete(
        KEY, organization_models.OrganizationIds(organizationIds=["acme"])
    )

    remaining = await grants(pool)
    assert {org for org, _, _ in remaining} == {"globex"}
    assert len(remaining) == 8
    documents = await pool.fetchval(
        "SELECT count(*) FROM identity.document WHERE organization_id = 'acme'"
    )
    folders = await pool.fetchval(
        "SELECT count(*) FROM identity.folder WHERE organization_id = 'acme'"
    )
    assert (documents, folders) == (0, 0)


async def test_a_changed_default_reaches_the_folders_that_take_it(pool: Pool) -> None:
    await seed(pool)
    await FolderService(pool, PAGES, "public").add(
        KEY,
        folder_models.AddFolders(
            organizationId="acme",
            folders=[
                folder_models.NewFolder(folderId="own", accessType="public"),
                folder_models.NewFolder(folderId="under-own", parentFolderId="own"),
                folder_models.NewFolder(
                    folderId="frozen", parentFolderId="a", inheritFromParent=False
                ),
            ],
        ),
    )
    before = len(await outbox_types(pool))

    changed = await FolderService(pool, PAGES, "restricted").apply_default_access()
    unchanged = await FolderService(pool, PAGES, "restricted").apply_default_access()

    assert (changed, unchanged) == (2, 0)
    rows = await pool.fetch(
        "SELECT folder_id, effective_access_type FROM identity.folder"
        " WHERE organization_id = 'acme'"
    )
    assert {r["folder_id"]: r["effective_access_type"] for r in rows} == {
        "a": "restricted",
        "b": "restricted",
        "c": "restricted",
        "own": "public",
        "under-own": "public",
        "frozen": "public",
    }
    assert (await outbox_types(pool))[before:] == ["identity.access.changed"] * 2

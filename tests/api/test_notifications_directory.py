"""In-app notifications follow their documents: a document migration moves them to the new id,
and deleting a document, a folder's documents or an organization in identity's directory takes
them out of every feed."""

from __future__ import annotations

import asyncio
from typing import Any

from redline.testing.api import ApiClient, Workspace
from tests.api.notification_support import CONFIG_GET, CONFIG_SET, GET, add, ok
from tests.api.test_identity_document_migration import MIGRATE, wait_for_status

ORG = "org"


async def of_document(api: ApiClient, ws: Workspace, document_id: str) -> list[str]:
    found = await ok(api, ws, GET, organizationId=ORG, documentId=document_id)
    return [n["id"] for n in found]


async def feed_of(api: ApiClient, ws: Workspace, user_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = await ok(api, ws, GET, organizationId=ORG, userId=user_id)
    return found


async def until_gone(api: ApiClient, ws: Workspace, document_id: str) -> list[str]:
    """The document's notifications once there are none, or after 10 s (the consumer is a
    stream's hop away)."""
    for _ in range(200):
        found = await of_document(api, ws, document_id)
        if not found:
            break
        await asyncio.sleep(0.05)
    return found


async def notify_on(api: ApiClient, ws: Workspace, document_id: str, *users: str) -> str:
    return await add(
        api,
        ws,
        *users,
        organizationId=ORG,
        documentId=document_id,
        createOrganization=True,
        createDocument=True,
    )


async def test_a_migration_moves_the_documents_notifications_to_the_new_id(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("notification-migration@example.com")
    moving = await notify_on(api, ws, "draft", "bob")
    staying = await notify_on(api, ws, "other", "bob")

    started = await ok(
        api, ws, MIGRATE, organizationId=ORG, documentId="draft", newDocumentId="final"
    )
    await wait_for_status(api, ws, started["migrationId"], "completed")

    assert await of_document(api, ws, "final") == [moving]
    assert await of_document(api, ws, "draft") == []
    assert await of_document(api, ws, "other") == [staying]
    by_id = {n["id"]: n for n in await feed_of(api, ws, "bob")}
    assert set(by_id) == {moving, staying}
    assert by_id[moving]["metadata"]["documentId"] == "final"
    assert by_id[staying]["metadata"]["documentId"] == "other"


async def test_a_migration_moves_the_users_preferences_for_the_document(api: ApiClient) -> None:
    ws = await api.create_workspace("notification-migration-prefs@example.com")
    await notify_on(api, ws, "draft", "bob")
    await ok(api, ws, CONFIG_SET, organizationId=ORG, userIds=["bob"], config={"inbox": "MINE"})
    for user, inbox in (("bob", "NONE"), ("carol", "NONE")):
        await ok(
            api,
            ws,
            CONFIG_SET,
            organizationId=ORG,
            userIds=[user],
            documentIds=["draft"],
            config={"inbox": inbox},
        )
    # carol had already chosen for the new id: her choice there stays.
    await ok(
        api,
        ws,
        CONFIG_SET,
        organizationId=ORG,
        userIds=["carol"],
        documentIds=["final"],
        config={"inbox": "ALL"},
    )

    started = await ok(
        api, ws, MIGRATE, organizationId=ORG, documentId="draft", newDocumentId="final"
    )
    await wait_for_status(api, ws, started["migrationId"], "completed")

    async def inbox_of(user: str) -> dict[str, str]:
        found = await ok(
            api, ws, CONFIG_GET, organizationId=ORG, userId=user, documentIds=["draft", "final"]
        )
        return {c["metadata"]["documentId"]: c["config"]["inbox"] for c in found}

    # The old id now has what any document has: bob's organization-wide choice.
    assert await inbox_of("bob") == {"draft": "MINE", "final": "NONE"}
    assert await inbox_of("carol") == {"draft": "ALL", "final": "ALL"}


async def test_a_migration_to_an_id_holding_notifications_fails_before_anything_moves(
    api: ApiClient,
) -> None:
    ws = await api.create_workspace("notification-migration-taken@example.com")
    first = await notify_on(api, ws, "draft", "bob")
    # Notifications under an id identity does not know: added without creating the document.
    taken = await add(api, ws, "bob", organizationId=ORG, documentId="final")

    started = await ok(
        api, ws, MIGRATE, organizationId=ORG, documentId="draft", newDocumentId="final"
    )
    status = await wait_for_status(api, ws, started["migrationId"], "failed")

    assert "notify" in status["failureReason"]
    assert await of_document(api, ws, "draft") == [first]
    assert await of_document(api, ws, "final") == [taken]


async def test_a_deleted_documents_notifications_leave_every_feed(api: ApiClient) -> None:
    ws = await api.create_workspace("notification-doc-delete@example.com")
    gone = await notify_on(api, ws, "hr", "bob", "carol")
    kept = await notify_on(api, ws, "faq", "bob")

    await ok(api, ws, "/v2/organizations/documents/delete", organizationId=ORG, documentIds=["hr"])

    assert await until_gone(api, ws, "hr") == []
    assert gone not in [n["id"] for n in await feed_of(api, ws, "carol")]
    assert [n["id"] for n in await feed_of(api, ws, "bob")] == [kept]
    assert await of_document(api, ws, "faq") == [kept]


async def test_a_deleted_folders_documents_lose_their_notifications(api: ApiClient) -> None:
    ws = await api.create_workspace("notification-folder-delete@example.com")
    await ok(
        api,
        ws,
        "/v2/organizations/folders/add",
        organizationId=ORG,
        createOrganization=True,
        folders=[{"folderId": "plans", "folderName": "Plans"}],
    )
    await ok(
        api,
        ws,
        "/v2/organizations/documents/add",
        organizationId=ORG,
        folderId="plans",
        documents=[{"documentId": "q3"}],
    )
    await add(api, ws, "bob", organizationId=ORG, documentId="q3")
    kept = await notify_on(api, ws, "faq", "bob")

    await ok(api, ws, "/v2/organizations/folders/delete", organizationId=ORG, folderId="plans")

    assert await until_gone(api, ws, "q3") == []
    assert [n["id"] for n in await feed_of(api, ws, "bob")] == [kept]


async def test_a_deleted_organizations_notifications_go(api: ApiClient) -> None:
    ws = await api.create_workspace("notification-org-delete@example.com")
    await notify_on(api, ws, "hr", "bob")
    await add(api, ws, "bob", organizationId=ORG, documentId="faq", notifyAll=True)

    await ok(api, ws, "/v2/organizations/delete", organizationIds=[ORG])

    assert await until_gone(api, ws, "hr") == []
    assert await of_document(api, ws, "faq") == []
    assert await feed_of(api, ws, "bob") == []

"""The official SDK's user group, disable state, personal data and invitation methods against
Redline, unchanged but for its base URL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from velt_py.models import (
    AddCommentAnnotationsRequest,
    AddUserGroupsRequest,
    AddUserInviteRequest,
    AddUsersRequest,
    AddUsersToGroupRequest,
    DeleteAllUserDataRequest,
    DeleteUsersFromGroupRequest,
    GenerateTokenRequest,
    GetAllUserDataRequest,
    GetDeleteUserDataStatusRequest,
    GetDocumentsCountRequest,
    GetDocumentsRequest,
    GetDocUsersRequest,
    GetInvitedPendingUsersCountRequest,
    GetInvitedUsersRequest,
    GetOrganizationsRequest,
    GetUserInvitationsRequest,
    GetUsersCountRequest,
    GetUsersRequest,
    RespondUserInviteRequest,
    SendLoginLinkRequest,
    UpdateDocumentDisableStateRequest,
    UpdateOrganizationDisableStateRequest,
    UpdateUsersRequest,
)

from redline.testing.api import ApiClient, StartApi
from redline.testing.mail import HOST, smtp_server
from tests.api.sdk_support import Sdk, sdk_for

SCOPE = {"organizationId": "acme", "documentId": "contract"}


@pytest.fixture
async def sdk(
    target_url: str | None, start_api: StartApi, api: ApiClient, monkeypatch: pytest.MonkeyPatch
) -> Sdk:
    return await sdk_for(target_url, start_api, api, monkeypatch)


async def add_members(sdk: Sdk, *user_ids: str) -> None:
    await sdk.ok(
        sdk.api.users.addUsers,
        AddUsersRequest(
            organizationId="acme",
            users=[{"userId": u, "name": u.title(), "email": f"{u}@example.com"} for u in user_ids],
            createOrganization=True,
        ),
    )


async def test_user_groups(sdk: Sdk) -> None:
    groups = sdk.api.userGroups
    await add_members(sdk, "ana", "bo")
    await sdk.ok(
        groups.addUserGroups,
        AddUserGroupsRequest(
            organizationId="acme",
            organizationUserGroups=[{"groupId": "legal", "groupName": "Legal"}],
        ),
    )
    added = await sdk.ok(
        groups.addUsersToGroup,
        AddUsersToGroupRequest(
            organizationId="acme", organizationUserGroupId="legal", userIds=["ana", "bo"]
        ),
    )
    assert all(outcome["success"] for outcome in added.values()), added
    members = await sdk.ok(
        sdk.api.users.getUsers,
        GetUsersRequest(organizationId="acme", organizationUserGroupIds=["legal"]),
    )
    assert sorted(u["userId"] for u in members) == ["ana", "bo"]
    await sdk.ok(
        groups.deleteUsersFromGroup,
        DeleteUsersFromGroupRequest(
            organizationId="acme", organizationUserGroupId="legal", userIds=["bo"]
        ),
    )
    members = await sdk.ok(
        sdk.api.users.getUsers,
        GetUsersRequest(organizationId="acme", organizationUserGroupIds=["legal"]),
    )
    assert [u["userId"] for u in members] == ["ana"]


async def test_disable_state(sdk: Sdk) -> None:
    thread = AddCommentAnnotationsRequest(
        **SCOPE,
        createOrganization=True,
        createDocument=True,
        commentAnnotations=[{"commentData": [{"commentText": "Hi", "from": {"userId": "ana"}}]}],
    )
    await sdk.ok(sdk.api.commentAnnotations.addCommentAnnotations, thread)
    await sdk.ok(
        sdk.api.documents.updateDocumentDisableState,
        UpdateDocumentDisableStateRequest(
            organizationId="acme", documentIds=["contract"], disabled=True
        ),
    )
    documents = await sdk.ok(
        sdk.api.documents.getDocuments,
        GetDocumentsRequest(organizationId="acme", documentIds=["contract"]),
    )
    assert documents[0]["disabled"] is True
    refused = await sdk.call(sdk.api.commentAnnotations.addCommentAnnotations, thread)
    assert refused["error"]["status"] == "FAILED_PRECONDITION", refused

    await sdk.ok(
        sdk.api.organizations.updateOrganizationDisableState,
        UpdateOrganizationDisableStateRequest(organizationIds=["acme"], disabled=True),
    )
    orgs = await sdk.ok(
        sdk.api.organizations.getOrganizations,
        GetOrganizationsRequest(organizationIds=["acme"]),
    )
    assert orgs[0]["disabled"] is True


async def test_personal_data_export_and_deletion(sdk: Sdk) -> None:
    gdpr = sdk.api.gdpr
    await add_members(sdk, "ana")
    await sdk.ok(
        sdk.api.commentAnnotations.addCommentAnnotations,
        AddCommentAnnotationsRequest(
            **SCOPE,
            createDocument=True,
            commentAnnotations=[
                {"commentData": [{"commentText": "Mine", "from": {"userId": "ana"}}]}
            ],
        ),
    )
    exported = await sdk.ok(
        gdpr.getAllUserData, GetAllUserDataRequest(userId="ana", organizationId="acme")
    )
    assert [c["comment"]["commentText"] for c in exported["comments"]] == ["Mine"]

    job = await sdk.ok(gdpr.deleteAllUserData, DeleteAllUserDataRequest(userIds=["ana"]))
    async with asyncio.timeout(60):
        while True:
            state = await sdk.ok(
                gdpr.getDeleteUserDataStatus, GetDeleteUserDataStatusRequest(jobId=job["jobId"])
            )
            if state["isDeleteCompleted"]:
                break
            await asyncio.sleep(0.2)
    after = await sdk.ok(
        gdpr.getAllUserData,
        GetAllUserDataRequest(veltUserIds=["ana"], veltAllOrganizations=True),
    )
    assert after["comments"] == []


async def test_invitations_through_a_real_relay(
    start_api: StartApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    with smtp_server() as (mailbox, port):
        relay: dict[str, Any] = {"smtp_url": f"smtp://{HOST}:{port}?security=none"}
        sdk = await sdk_for(None, start_api, None, monkeypatch, **relay)
        users = sdk.api.users
        await add_members(sdk, "grace")
        invited = await sdk.ok(
            users.addUserInvite,
            AddUserInviteRequest(
                email="ada@example.com",
                organizationId="acme",
                type="org_user",
                invitedBy={"userId": "grace", "email": "grace@example.com"},
            ),
        )
        assert invited
        [mail] = await mailbox.wait_for(1)
        assert "ada@example.com" in mail.recipients
        pending = await sdk.ok(
            users.getInvitedPendingUsersCount,
            GetInvitedPendingUsersCountRequest(organizationId="acme", type="org_user"),
        )
        assert pending["count"] == 1
        listed = await sdk.ok(users.getInvitedUsers, GetInvitedUsersRequest(organizationId="acme"))
        assert [i["email"] for i in listed] == ["ada@example.com"]
        mine = await sdk.ok(
            users.getUserInvitations,
            GetUserInvitationsRequest(organizationId="acme", email="ada@example.com"),
        )
        assert len(mine) == 1
        token = await sdk.ok(
            sdk.api.accessControl.generateToken,
            GenerateTokenRequest(userId="ada", userProperties={"email": "ada@example.com"}),
        )
        await sdk.ok(
            users.respondToInvite,
            RespondUserInviteRequest(
                email="ada@example.com",
                organizationId="acme",
                status="ACCEPTED",
                type="org_user",
                user={"userId": "ada", "name": "Ada"},
                authToken=token["token"],
            ),
        )
        count = await sdk.ok(
            users.getUsersCount, GetUsersCountRequest(organizationId="acme", userId="ada")
        )
        assert count["count"] == 1
        await sdk.ok(
            sdk.api.workspace.sendLoginLink,
            SendLoginLinkRequest(email="owner@example.com", continueUrl="http://localhost/app"),
        )
        await mailbox.wait_for(2)


async def test_document_counts_and_document_users(sdk: Sdk) -> None:
    await sdk.ok(
        sdk.api.users.addUsers,
        AddUsersRequest(
            **SCOPE,
            users=[{"userId": "ana", "email": "ana@example.com"}],
            createOrganization=True,
            createDocument=True,
        ),
    )
    counted = await sdk.ok(
        sdk.api.documents.getDocumentsCount, GetDocumentsCountRequest(organizationId="acme")
    )
    assert counted["count"] == 1
    on_documents = await sdk.ok(
        sdk.api.users.getDocUsers,
        GetDocUsersRequest(organizationId="acme", userIds=["ana"], includeInvolvedDocuments=True),
    )
    assert "contract" in str(on_documents)


async def test_users_across_documents_and_in_a_parent_folder(sdk: Sdk) -> None:
    users = sdk.api.users
    for document, user_id in (("contract", "ana"), ("memo", "bo")):
        await sdk.ok(
            users.addUsers,
            AddUsersRequest(
                organizationId="acme",
                documentId=document,
                users=[{"userId": user_id, "name": user_id.title()}],
                createOrganization=True,
                createDocument=True,
                createFolder=True,
                parentFolderId="legal",
            ),
        )
    in_folder = await sdk.ok(
        sdk.api.documents.getDocuments,
        GetDocumentsRequest(organizationId="acme", folderId="legal"),
    )
    assert sorted(d["id"] for d in in_folder) == ["contract", "memo"]

    updated = await sdk.ok(
        users.updateUsers,
        UpdateUsersRequest(
            users=[{"userId": "ana", "accessRole": "viewer"}], options={"all": True}
        ),
    )
    assert updated["ana"]["success"] is True
    await sdk.ok(
        users.updateUsers,
        UpdateUsersRequest(
            organizationId="acme",
            users=[{"userId": "bo", "name": "Bo Lee"}],
            options={"allDocuments": True},
        ),
    )

    everyone = await sdk.ok(
        users.getUsers, GetUsersRequest(organizationId="acme", allDocuments=True)
    )
    assert [(u["userId"], u["name"]) for u in everyone] == [("ana", "Ana"), ("bo", "Bo Lee")]
    grouped = await sdk.ok(
        users.getUsers,
        GetUsersRequest(organizationId="acme", allDocuments=True, groupByDocumentId=True),
    )
    assert {d: [(u["userId"], u["accessRole"]) for u in found] for d, found in grouped.items()} == {
        "contract": [("ana", "viewer")],
        "memo": [("bo", "editor")],
    }

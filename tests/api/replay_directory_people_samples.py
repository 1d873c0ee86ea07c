"""The reference's example requests for users, user groups and personal data (GDPR), part of
the directory's replay (see replay_directory_samples)."""

from __future__ import annotations

from tests.api.replay_support import Sample


def _user(role: str) -> dict[str, str]:
    return {
        "userId": "yourUserId1",
        "name": "User Name",
        "email": "user@email.com",
        "accessRole": role,
    }


def _users_at(verb: str, level: dict[str, str]) -> list[Sample]:
    """A users page's editor and viewer tabs at one level (organization, document or folder)."""
    where = {"documentId": "document", "folderId": "folder"}
    at = next((f" in a specific {where[key]}" for key in level), " in a specific organization")
    return [
        Sample(
            page=f"users/{verb}: {verb} users{at} ({role} tab)",
            path=f"/v2/users/{verb}",
            data={"organizationId": "yourOrganizationId", **level, "users": [_user(role)]},
            fields=("data.yourUserId1.success", "data.yourUserId1.id"),
        )
        for role in ("editor", "viewer")
    ]


IN_DOCUMENT = {"documentId": "yourDocumentId"}
IN_FOLDER = {"folderId": "yourFolderId"}

USERS = [
    *_users_at("add", {}),
    *_users_at("add", IN_DOCUMENT),
    *_users_at("add", IN_FOLDER),
    Sample(
        # The page's token is a placeholder; a token Redline never issued is refused.
        page="users/get: get users by organizationId",
        path="/v2/users/get",
        data={"organizationId": "yourOrganizationId", "pageSize": 1000, "pageToken": "pageToken"},
        expect="INVALID_ARGUMENT",
    ),
    Sample(
        page="users/get: by organizationId without the placeholder token",
        path="/v2/users/get",
        data={"organizationId": "yourOrganizationId", "pageSize": 1000},
        fields=("data.0.userId", "data.0.name", "data.0.email"),
    ),
    Sample(
        page="users/get: the Postman collection's body (organizationId alone)",
        path="/v2/users/get",
        data={"organizationId": "yourOrganizationId"},
        fields=("data.0.userId", "data.0.name", "data.0.email"),
    ),
    Sample(
        page="users/get: get users by documentId within an organization",
        path="/v2/users/get",
        data={"organizationId": "yourOrganizationId", "documentId": "yourDocumentId"},
        fields=("data.0.userId", "data.0.name", "data.0.email"),
    ),
    Sample(
        # Users were added to "yourDocumentId" above: the answer is keyed by that document.
        page="users/get: get users of all documents, grouped by document",
        path="/v2/users/get",
        data={
            "organizationId": "yourOrganizationId",
            "allDocuments": True,
            "groupByDocumentId": True,
        },
        fields=("data.yourDocumentId.0.userId", "data.yourDocumentId.0.accessRole"),
    ),
    Sample(
        page="users/get: get users by specific user IDs in an organization",
        path="/v2/users/get",
        data={"organizationId": "yourOrganizationId", "userIds": ["yourUserId1", "yourUserId2"]},
        fields=("data.0.userId", "data.0.name", "data.0.email"),
    ),
    Sample(
        page="users/get: get users by specific user IDs in the given organization and document",
        path="/v2/users/get",
        data={
            "organizationId": "yourOrganizationId",
            "documentId": "yourDocumentId",
            "userIds": ["yourUserId1", "yourUserId2"],
        },
        fields=("data.0.userId", "data.0.name", "data.0.email"),
    ),
    Sample(
        # No group "yourOrganizationUserGroupId" exists: nobody is in it.
        page="users/get: get users by organization and organization user group IDs",
        path="/v2/users/get",
        data={
            "organizationId": "yourOrganizationId",
            "organizationUserGroupIds": ["yourOrganizationUserGroupId"],
        },
        fields=("data",),
    ),
    Sample(
        page="users/get: get users by organization, organization user group IDs and user IDs",
        path="/v2/users/get",
        data={
            "organizationId": "yourOrganizationId",
            "userIds": ["yourUserId1", "yourUserId2"],
            "organizationUserGroupIds": ["yourOrganizationUserGroupId"],
        },
        fields=("data",),
    ),
    Sample(
        page="users/get: get users by folderId within an organization",
        path="/v2/users/get",
        data={"organizationId": "yourOrganizationId", "folderId": "yourFolderId"},
        fields=("data.0.userId", "data.0.name", "data.0.email"),
    ),
    *_users_at("update", {}),
    *_users_at("update", IN_DOCUMENT),
    *_users_at("update", IN_FOLDER),
]

USER_GROUPS = [
    Sample(
        page="usergroups/add: add organization user group in a specific organization",
        path="/v2/organizations/usergroups/add",
        data={
            "organizationId": "yourOrganizationId",
            "organizationUserGroups": [{"groupId": "engineering", "groupName": "Engineering"}],
        },
        fields=("data.engineering.success", "data.engineering.id", "data.engineering.message"),
    ),
    Sample(
        # The pages' "yourGroupId" is a group the customer names; none was added under it.
        page="usergroups/users/add",
        path="/v2/organizations/usergroups/users/add",
        data={
            "organizationId": "yourOrganizationId",
            "organizationUserGroupId": "yourGroupId",
            "userIds": ["yourUserId1"],
        },
        expect="NOT_FOUND",
    ),
    Sample(
        page="usergroups/users/add: to the group the add example made",
        path="/v2/organizations/usergroups/users/add",
        data={
            "organizationId": "yourOrganizationId",
            "organizationUserGroupId": "engineering",
            "userIds": ["yourUserId1"],
        },
        fields=("data.yourUserId1.success", "data.yourUserId1.organizationUserGroupId"),
    ),
    Sample(
        page="usergroups/users/delete: delete specific users from group",
        path="/v2/organizations/usergroups/users/delete",
        data={
            "organizationId": "yourOrganizationId",
            "organizationUserGroupId": "yourGroupId",
            "userIds": ["yourUserId1"],
        },
        expect="NOT_FOUND",
    ),
    Sample(
        page="usergroups/users/delete: delete all users from group",
        path="/v2/organizations/usergroups/users/delete",
        data={
            "organizationId": "yourOrganizationId",
            "organizationUserGroupId": "yourGroupId",
            "deleteAll": True,
        },
        expect="NOT_FOUND",
    ),
]

USER_REMOVALS = [
    # The document and folder examples first, so that each removes a membership that exists:
    # removal at the organization takes the user's folder and document memberships with it.
    Sample(
        page="users/delete: delete users in a specific document within an organization",
        path="/v2/users/delete",
        data={
            "organizationId": "yourOrganizationId",
            "documentId": "yourDocumentId",
            "userIds": ["yourUserId1"],
        },
        fields=("data.yourUserId1.success", "data.yourUserId1.message"),
    ),
    Sample(
        page="users/delete: delete users in a specific folder within an organization",
        path="/v2/users/delete",
        data={
            "organizationId": "yourOrganizationId",
            "folderId": "yourFolderId",
            "userIds": ["yourUserId1"],
        },
        fields=("data.yourUserId1.success", "data.yourUserId1.message"),
    ),
    Sample(
        page="users/delete: delete users in a specific organization",
        path="/v2/users/delete",
        data={"organizationId": "yourOrganizationId", "userIds": ["yourUserId1"]},
        fields=("data.yourUserId1.success", "data.yourUserId1.message"),
    ),
]

PERSONAL_DATA = [
    Sample(
        # The page's token is a placeholder; a token Redline never issued is refused.
        page="users/data/get",
        path="/v2/users/data/get",
        data={
            "organizationId": "yourOrganizationId",
            "userId": "yourUserId",
            "pageToken": "yourPageToken",
        },
        expect="INVALID_ARGUMENT",
    ),
    Sample(
        page="users/data/get without the placeholder token",
        path="/v2/users/data/get",
        data={"organizationId": "yourOrganizationId", "userId": "yourUserId"},
        fields=("data.comments", "data.reactions", "data.recordings", "data.notifications"),
    ),
    Sample(
        page="users/data/delete",
        path="/v2/users/data/delete",
        data={
            "userIds": ["yourUserId1", "yourUserId2"],
            "organizationIds": ["yourOrganizationId1", "yourOrganizationId2"],
        },
        fields=("data.jobId", "data.tasksCount"),
        save={"jobId": "data.jobId"},
    ),
    Sample(
        # "yourJobId" stands for the job id the delete answered.
        page="users/data/delete/status",
        path="/v2/users/data/delete/status",
        data={"jobId": "$jobId"},
        fields=("data.isDeleteCompleted", "data.tasksLeft", "data.lastTaskCompletedTime"),
    ),
]

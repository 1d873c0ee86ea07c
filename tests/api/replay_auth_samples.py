"""The reference's example requests for `/v2/auth`: permissions, user tokens and permission
provider signatures, in an order that lets later examples find what earlier ones made."""

from __future__ import annotations

from tests.api.replay_support import Sample


def _grant(resource: dict[str, object]) -> dict[str, object]:
    return {"user": {"userId": "some-user-id"}, "permissions": {"resources": [resource]}}


PERMISSIONS = [
    Sample(
        page="auth/permissions/add: organization, editor",
        path="/v2/auth/permissions/add",
        data=_grant({"type": "organization", "id": "YOUR_ORGANIZATION_ID", "accessRole": "editor"}),
    ),
    Sample(
        page="auth/permissions/add: organization, viewer",
        path="/v2/auth/permissions/add",
        data=_grant({"type": "organization", "id": "YOUR_ORGANIZATION_ID", "accessRole": "viewer"}),
    ),
    Sample(
        page="auth/permissions/add: document in an organization, editor",
        path="/v2/auth/permissions/add",
        data=_grant(
            {
                "type": "document",
                "id": "YOUR_DOCUMENT_ID",
                "organizationId": "YOUR_ORGANIZATION_ID",
                "accessRole": "editor",
                "expiresAt": 1728902400,
            }
        ),
    ),
    Sample(
        page="auth/permissions/add: document in an organization, viewer",
        path="/v2/auth/permissions/add",
        data=_grant(
            {
                "type": "document",
                "id": "YOUR_DOCUMENT_ID",
                "organizationId": "YOUR_ORGANIZATION_ID",
                "accessRole": "viewer",
                "expiresAt": 1728902400,
            }
        ),
    ),
    Sample(
        page="auth/permissions/add: folder in an organization, editor",
        path="/v2/auth/permissions/add",
        data=_grant(
            {
                "type": "folder",
                "id": "YOUR_FOLDER_ID",
                "organizationId": "YOUR_ORGANIZATION_ID",
                "accessRole": "editor",
            }
        ),
    ),
    Sample(
        page="auth/permissions/add: folder in an organization, viewer",
        path="/v2/auth/permissions/add",
        data=_grant(
            {
                "type": "folder",
                "id": "YOUR_FOLDER_ID",
                "organizationId": "YOUR_ORGANIZATION_ID",
                "accessRole": "viewer",
            }
        ),
    ),
    Sample(
        # The page's ids name nothing made before: a document that does not exist is the
        # page's NOT_FOUND "Folder or document does not exist", its map in the details.
        page="auth/permissions/get",
        path="/v2/auth/permissions/get",
        data={
            "organizationId": "org1",
            "documentIds": ["freestyle-comments1"],
            "userIds": ["samarth"],
        },
        expect="NOT_FOUND",
    ),
    Sample(
        # The same question about the user, organization and document the examples above
        # granted: the page's success shape.
        page="auth/permissions/get about what permissions/add granted",
        path="/v2/auth/permissions/get",
        data={
            "organizationId": "YOUR_ORGANIZATION_ID",
            "documentIds": ["YOUR_DOCUMENT_ID"],
            "folderIds": ["YOUR_FOLDER_ID"],
            "userIds": ["some-user-id"],
        },
        fields=(
            "data.some-user-id.organization.YOUR_ORGANIZATION_ID.accessRole",
            "data.some-user-id.folders.YOUR_FOLDER_ID.accessRole",
            "data.some-user-id.folders.YOUR_FOLDER_ID.accessType",
            "data.some-user-id.documents.YOUR_DOCUMENT_ID",
        ),
    ),
    Sample(
        page="auth/permissions/remove",
        path="/v2/auth/permissions/remove",
        data={
            "userId": "USER_ID",
            "permissions": {
                "resources": [
                    {"type": "organization", "id": "ORGANIZATION_ID"},
                    {
                        "type": "document",
                        "id": "DOCUMENT_ID",
                        "organizationId": "ORGANIZATION_ID",
                    },
                ]
            },
        },
    ),
]

# The first example of generate_token, which the Postman collection also sends.
_TOKEN_EXAMPLE: dict[str, object] = {
    "userId": "user123",
    "userProperties": {"isAdmin": False, "name": "John Doe", "email": "john@example.com"},
    "permissions": {
        "resources": [
            {"type": "organization", "id": "org_123", "accessRole": "viewer"},
            {
                "type": "document",
                "id": "doc_456",
                "organizationId": "org_123",
                "accessRole": "editor",
                "expiresAt": 1640995200,
            },
        ]
    },
}

TOKENS = [
    Sample(
        page="auth/generate_token: organization viewer, document editor",
        path="/v2/auth/generate_token",
        data=_TOKEN_EXAMPLE,
        fields=("data.token",),
    ),
    Sample(
        page="auth/generate_token: organization only, viewer",
        path="/v2/auth/generate_token",
        data={
            "userId": "user456",
            "userProperties": {"isAdmin": True, "name": "Jane Smith", "email": "jane@example.com"},
            "permissions": {
                "resources": [{"type": "organization", "id": "org_789", "accessRole": "viewer"}]
            },
        },
        fields=("data.token",),
    ),
    Sample(
        page="auth/generate_token: folder, editor",
        path="/v2/auth/generate_token",
        data={
            "userId": "user789",
            "userProperties": {"isAdmin": False, "name": "Bob Wilson", "email": "bob@example.com"},
            "permissions": {
                "resources": [
                    {"type": "organization", "id": "org_123"},
                    {
                        "type": "folder",
                        "id": "folder_001",
                        "organizationId": "org_123",
                        "accessRole": "editor",
                    },
                ]
            },
        },
        fields=("data.token",),
    ),
    Sample(
        # The Postman collection's Generate Token body lacks the `{"data": …}` wrapper; the page
        # warns that such a body is INVALID_ARGUMENT.
        page="Postman: Generate Token without the data wrapper",
        path="/v2/auth/generate_token",
        data=_TOKEN_EXAMPLE,
        unwrapped=True,
        expect="INVALID_ARGUMENT",
    ),
]


SIGNATURES = [
    Sample(
        page="auth/generate_signature: document viewer with expiry",
        path="/v2/auth/generate_signature",
        data={
            "permissions": [
                {
                    "userId": "user123",
                    "resourceId": "document456",
                    "type": "document",
                    "hasAccess": True,
                    "accessRole": "viewer",
                    "expiresAt": 1759745729823,
                }
            ]
        },
        fields=("data.signature",),
    ),
    Sample(
        page="auth/generate_signature: organization and folder",
        path="/v2/auth/generate_signature",
        data={
            "permissions": [
                {
                    "userId": "user123",
                    "resourceId": "org789",
                    "type": "organization",
                    "hasAccess": True,
                },
                {
                    "userId": "user123",
                    "resourceId": "folder101",
                    "type": "folder",
                    "hasAccess": True,
                },
            ]
        },
        fields=("data.signature",),
    ),
    Sample(
        page="auth/generate_signature: access denied",
        path="/v2/auth/generate_signature",
        data={
            "permissions": [
                {
                    "userId": "user456",
                    "resourceId": "document789",
                    "type": "document",
                    "hasAccess": False,
                }
            ]
        },
        fields=("data.signature",),
    ),
    Sample(
        page="auth/generate_signature: document editor",
        path="/v2/auth/generate_signature",
        data={
            "permissions": [
                {
                    "userId": "user789",
                    "resourceId": "document123",
                    "type": "document",
                    "hasAccess": True,
                    "accessRole": "editor",
                }
            ]
        },
        fields=("data.signature",),
    ),
    Sample(
        page="auth/generate_signature: document viewer",
        path="/v2/auth/generate_signature",
        data={
            "permissions": [
                {
                    "userId": "user456",
                    "resourceId": "document123",
                    "type": "document",
                    "hasAccess": True,
                    "accessRole": "viewer",
                }
            ]
        },
        fields=("data.signature",),
    ),
]


AUTH_SAMPLES = [*PERMISSIONS, *TOKENS, *SIGNATURES]

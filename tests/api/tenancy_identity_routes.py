"""The tenancy matrix's table for identity's routes (workspace, users, organizations and their
directory, auth): B's bodies naming A-only ids, or why a route takes none."""

from __future__ import annotations

from tests.api.tenancy_probes import CREATES, OWN, PUBLIC, Probe, no_id
from tests.api.tenancy_support import (
    A_DOC,
    A_DOMAIN,
    A_ENDPOINT,
    A_FOLDER,
    A_GROUP,
    A_ORG,
    A_USER,
    DOC,
    FOLDER,
    GROUP,
    ORG,
    USER,
    Seeded,
)


def identity_matrix(a: Seeded, b: Seeded) -> dict[str, Probe]:
    b_key = b.ws.api_key
    acme = {"organizationId": ORG}
    grant = {"type": "document", "id": A_DOC, "organizationId": ORG, "accessRole": "editor"}
    return {
        "/v2/auth/generate_token": Probe(
            [{"userId": A_USER, "permissions": {"resources": [grant]}}]
        ),
        "/v2/auth/permissions/add": Probe(
            [{"user": {"userId": A_USER}, "permissions": {"resources": [grant]}}], makes=True
        ),
        "/v2/auth/permissions/get": Probe(
            [
                {**acme, "userIds": [A_USER, USER], "documentIds": [A_DOC, DOC]},
                {**acme, "userIds": [USER], "folderIds": [A_FOLDER]},
                {"organizationId": A_ORG, "userIds": [USER]},
            ]
        ),
        "/v2/auth/permissions/remove": Probe(
            [{"userId": USER, "permissions": {"resources": [grant]}}]
        ),
        "/v2/organizations/access/disablestate/update": Probe(
            # Only enabling: B's own organizations must stay writable for the probes after it.
            [{"organizationIds": [A_ORG, ORG], "disabled": False}],
            makes=True,
        ),
        "/v2/organizations/add": no_id(
            CREATES, {"organizations": [{"organizationId": "b-new-org"}]}
        ),
        "/v2/organizations/delete": Probe([{"organizationIds": [A_ORG]}]),
        "/v2/organizations/documents/access/disablestate/update": Probe(
            [
                {**acme, "documentIds": [A_DOC], "disabled": True},
                {"organizationId": A_ORG, "documentIds": [DOC], "disabled": True},
            ]
        ),
        "/v2/organizations/documents/access/update": Probe(
            [{**acme, "documentIds": [A_DOC], "accessType": "restricted"}]
        ),
        "/v2/organizations/documents/add": Probe(
            [
                {
                    "organizationId": A_ORG,
                    "createOrganization": False,
                    "documents": [{"documentId": "x"}],
                }
            ]
        ),
        "/v2/organizations/documents/delete": Probe(
            [{**acme, "documentIds": [A_DOC]}, {"organizationId": A_ORG, "documentIds": [DOC]}]
        ),
        "/v2/organizations/documents/get": Probe(
            [
                acme,
                {**acme, "documentIds": [A_DOC, DOC]},
                {**acme, "folderId": A_FOLDER},
                {"organizationId": A_ORG},
            ]
        ),
        "/v2/organizations/documents/migrate": Probe(
            [{**acme, "documentId": A_DOC, "newDocumentId": "b-new-doc"}]
        ),
        "/v2/organizations/documents/migrate/status": Probe(
            [{**acme, "migrationId": a.migration_id}]
        ),
        "/v2/organizations/documents/move": Probe(
            [
                {**acme, "documentIds": [A_DOC], "folderId": FOLDER},
                {**acme, "documentIds": [DOC], "folderId": A_FOLDER},
            ]
        ),
        "/v2/organizations/documents/count/get": Probe(
            [
                acme,
                {**acme, "folderId": A_FOLDER},
                {**acme, "filters": [{"key": "k", "operator": "==", "value": "v"}]},
                {"organizationId": A_ORG},
            ]
        ),
        "/v2/organizations/documents/update": Probe(
            [{**acme, "documents": [{"documentId": A_DOC, "documentName": "x"}]}]
        ),
        "/v2/organizations/folders/access/update": Probe(
            [{**acme, "folderIds": [A_FOLDER], "accessType": "restricted"}]
        ),
        "/v2/organizations/folders/add": Probe(
            [
                {
                    "organizationId": A_ORG,
                    "createOrganization": False,
                    "folders": [{"folderId": "x"}],
                },
                {**acme, "folders": [{"folderId": "x", "parentFolderId": A_FOLDER}]},
            ]
        ),
        "/v2/organizations/folders/delete": Probe([{**acme, "folderId": A_FOLDER}]),
        "/v2/organizations/folders/get": Probe(
            [acme, {**acme, "folderId": A_FOLDER}, {"organizationId": A_ORG}]
        ),
        "/v2/organizations/folders/update": Probe(
            [{**acme, "folders": [{"folderId": A_FOLDER, "folderName": "x"}]}]
        ),
        "/v2/organizations/get": Probe([{}, {"organizationIds": [A_ORG, ORG]}]),
        "/v2/organizations/usergroups/add": Probe(
            [
                {
                    "organizationId": A_ORG,
                    "createOrganization": False,
                    "organizationUserGroups": [{"groupId": GROUP}],
                }
            ]
        ),
        "/v2/organizations/usergroups/users/add": Probe(
            [
                {**acme, "organizationUserGroupId": A_GROUP, "userIds": [USER]},
                {**acme, "organizationUserGroupId": GROUP, "userIds": [A_USER]},
                {"organizationId": A_ORG, "organizationUserGroupId": GROUP, "userIds": [USER]},
            ]
        ),
        "/v2/organizations/usergroups/users/delete": Probe(
            [
                {**acme, "organizationUserGroupId": A_GROUP, "deleteAll": True},
                {**acme, "organizationUserGroupId": GROUP, "userIds": [A_USER]},
                {"organizationId": A_ORG, "organizationUserGroupId": GROUP, "deleteAll": True},
            ]
        ),
        "/v2/organizations/update": Probe(
            [{"organizations": [{"organizationId": A_ORG, "organizationName": "x"}]}]
        ),
        "/v2/auth/generate_signature": Probe(
            [
                {
                    "permissions": [
                        {
                            "userId": A_USER,
                            "resourceId": A_DOC,
                            "type": "document",
                            "hasAccess": True,
                        }
                    ]
                }
            ]
        ),
        "/v2/auth/token/get": Probe(
            [
                {
                    "userId": A_USER,
                    "userProperties": {"organizationId": A_ORG},
                    "permissions": {"resources": [grant]},
                }
            ]
        ),
        "/v2/users/add": Probe(
            [
                {"organizationId": A_ORG, "createOrganization": False, "users": [{"userId": "x"}]},
                {**acme, "documentId": A_DOC, "users": [{"userId": "x"}]},
                {
                    **acme,
                    # A new document of B's, placed in a folder only A has.
                    "documentId": "b-placed-doc",
                    "createDocument": True,
                    "parentFolderId": A_FOLDER,
                    "users": [{"userId": "x"}],
                },
            ],
            makes=True,
        ),
        "/v2/users/data/delete": Probe(
            [{"userIds": [A_USER]}, {"userIds": [A_USER], "organizationIds": [A_ORG]}]
        ),
        "/v2/users/data/delete/status": Probe([{"jobId": a.erasure_job_id}]),
        "/v2/users/data/get": Probe(
            [
                {**acme, "userId": A_USER},
                {"organizationId": A_ORG, "userId": USER},
                {"veltUserIds": [A_USER, USER], "veltAllOrganizations": True},
            ]
        ),
        "/v2/users/delete": Probe(
            [{**acme, "userIds": [A_USER]}, {"organizationId": A_ORG, "userIds": [USER]}]
        ),
        "/v2/users/get": Probe(
            [
                acme,
                {**acme, "userIds": [A_USER, USER]},
                {**acme, "documentId": A_DOC},
                {**acme, "folderId": A_FOLDER},
                {"organizationId": A_ORG},
                {**acme, "organizationUserGroupIds": [A_GROUP, GROUP]},
                {**acme, "allDocuments": True, "groupByDocumentId": True},
                {"organizationId": A_ORG, "allDocuments": True},
            ]
        ),
        "/v2/users/update": Probe(
            [
                {**acme, "users": [{"userId": A_USER, "name": "x"}]},
                {"users": [{"userId": A_USER, "name": "x"}], "options": {"all": True}},
                {**acme, "users": [{"userId": A_USER}], "options": {"allDocuments": True}},
            ]
        ),
        # Invitations: B names A's organization (B's own ORG has none of A's invitations). The
        # matrix runs without a mail relay, so inviting is refused before anything is written.
        "/v2/users/invite/add": Probe(
            [{"email": "x@bravo-probe.example", "organizationId": A_ORG, "type": "org_user"}]
        ),
        "/v2/users/invite/get": Probe([{"organizationId": A_ORG}, acme]),
        "/v2/users/invite/pending/count": Probe([{"organizationId": A_ORG, "type": "org_user"}]),
        "/v2/users/invite/respond": Probe(
            [
                {
                    "email": "x@bravo-probe.example",
                    "organizationId": A_ORG,
                    "type": "doc_user",
                    "documentId": A_DOC,
                    "status": "WITHDRAWN",
                }
            ]
        ),
        "/v2/users/invitations/get": Probe(
            [{"organizationId": A_ORG, "email": "x@bravo-probe.example"}]
        ),
        "/v2/users/count/get": Probe(
            [
                acme,
                {**acme, "userId": A_USER},
                {**acme, "documentId": A_DOC},
                {**acme, "allDocuments": True, "userId": A_USER},
                {"organizationId": A_ORG},
            ]
        ),
        "/v2/users/doc/get": Probe(
            [
                acme,
                {**acme, "userIds": [A_USER, USER], "includeInvolvedDocuments": True},
                {"organizationId": A_ORG},
            ]
        ),
        "/v2/workspace/activityconfig/get": no_id(OWN),
        "/v2/workspace/activityconfig/update": no_id(
            OWN, {"activityServiceConfig": {"isEnabled": True}}
        ),
        # B makes an endpoint with A's uid in its own namespace (disabled: nothing is sent).
        "/v2/workspace/advancedwebhook/endpoints/create": Probe(
            [{"url": "https://bravo-probe.example.com/", "uid": A_ENDPOINT, "disabled": True}],
            makes=True,
        ),
        "/v2/workspace/advancedwebhook/endpoints/delete": Probe(
            [{"endpointId": a.endpoint_id}, {"endpointId": A_ENDPOINT}]
        ),
        "/v2/workspace/advancedwebhook/endpoints/get": no_id(
            "lists the caller's own endpoints, takes no id"
        ),
        "/v2/workspace/advancedwebhook/endpoints/secret/get": Probe(
            [{"endpointId": a.endpoint_id}, {"endpointId": A_ENDPOINT}]
        ),
        "/v2/workspace/advancedwebhook/endpoints/update": Probe(
            [
                {"endpointId": a.endpoint_id, "disabled": False},
                {"endpointId": A_ENDPOINT, "url": "https://bravo-probe.example.com/x"},
            ]
        ),
        "/v2/workspace/advancedwebhookconfig/get": no_id(OWN),
        "/v2/workspace/advancedwebhookconfig/update": no_id(OWN, {"isEnabled": True}),
        # A workspace's domains are its own: B deletes the one A has (B has none), then adds it.
        "/v2/workspace/domains/add": Probe([{"domains": [A_DOMAIN]}], makes=True),
        "/v2/workspace/domains/delete": Probe([{"domains": [A_DOMAIN]}]),
        "/v2/workspace/domains/get": no_id(OWN),
        "/v2/workspace/emailconfig/get": no_id(OWN),
        "/v2/workspace/emailconfig/update": no_id(OWN, {"useEmailService": False}),
        "/v2/workspace/email/send-login-link": no_id(
            PUBLIC,
            {"email": "owner@bravo.example", "continueUrl": "http://localhost/"},
            credentials="none",
        ),
        "/v2/workspace/email/status": no_id(
            PUBLIC, {"ownerEmail": "owner@bravo.example"}, credentials="none"
        ),
        "/v2/workspace/notificationconfig/get": no_id(OWN),
        "/v2/workspace/notificationconfig/update": no_id(OWN, {"useNotificationService": True}),
        "/v2/workspace/webhookconfig/get": no_id(OWN),
        "/v2/workspace/domains/request": Probe(
            [{"domain": A_DOMAIN}, {"domain": "x.example", "clientDocumentId": A_DOC, **acme}],
            makes=True,
        ),
        "/v2/workspace/requested/domains/get": no_id(OWN),
        "/v2/workspace/additional-url-request": Probe(
            [
                {"action": "accept", "id": a.domain_request},
                {"action": "reject", "id": a.domain_request, "clientDocId": A_DOC},
            ]
        ),
        "/v2/workspace/permissionproviderconfig/get": no_id(OWN),
        "/v2/workspace/permissionproviderconfig/update": no_id(
            OWN, {"usePermissionProvider": False}
        ),
        "/v2/workspace/apikeyconfig/get": no_id(OWN),
        "/v2/workspace/apikeyconfig/update": no_id(OWN, {"requireJwtToken": True}),
        "/v2/workspace/apikeymetadata/get": no_id(OWN),
        "/v2/workspace/apikeymetadata/update": no_id(OWN, {"requireAutoOrgUser": True}),
        "/v2/workspace/webhookconfig/update": no_id(OWN, {"useWebhookService": False}),
        # The workspace routes: B's workspace credentials with A's API key.
        "/v2/workspace/apikey/create": no_id(CREATES, {"apiKeyName": "x"}, credentials="workspace"),
        "/v2/workspace/apikey/update": Probe(
            [{"apiKey": a.ws.api_key, "apiKeyName": "x"}], credentials="workspace"
        ),
        "/v2/workspace/apikeys/get": no_id(OWN, credentials="workspace"),
        "/v2/workspace/authtoken/reset": Probe([{"apiKey": a.ws.api_key}], credentials="workspace"),
        "/v2/workspace/authtokens/get": Probe([{"apiKey": a.ws.api_key}], credentials="workspace"),
        "/v2/workspace/create": no_id(
            "makes a new workspace, which names nothing of another",
            {"ownerEmail": "new@bravo-probe.example"},
            credentials="none",
        ),
        "/v2/workspace/get": no_id(OWN, credentials="workspace"),
        "/v2/workspace/authtoken/ensure": no_id(OWN, credentials="workspace"),
        "/v2/workspace/apikey/copy": Probe(
            [
                {"sourceApiKey": a.ws.api_key, "targetApiKey": b_key},
                {"sourceApiKey": b_key, "targetApiKey": a.ws.api_key},
            ],
            credentials="workspace",
        ),
    }

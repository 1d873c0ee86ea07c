"""The tenancy matrix's table: for every route of the document, the bodies workspace B sends
naming A-only state, or why the route takes no id of another workspace."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from tests.api.knowledge_support import TEXT
from tests.api.tenancy_support import (
    A_ACTIVITY,
    A_DEFINITION,
    A_DOC,
    A_DOMAIN,
    A_ENDPOINT,
    A_FOLDER,
    A_GROUP,
    A_IDEA,
    A_NOTE,
    A_NOTIFICATION,
    A_ORG,
    A_USER,
    ACTIVITY,
    DEFINITION,
    DOC,
    FOLDER,
    GROUP,
    NOTE,
    NOTIFICATION,
    ORG,
    SUGGESTION,
    USER,
    Json,
    Seeded,
    review,
)


@dataclass
class Probe:
    """B's bodies for a route; `why` is set when the route takes no id of another workspace, and
    says why (those routes are still called, and their answers checked the same way)."""

    bodies: list[Json]
    why: str = ""
    credentials: str = "key"  # "key", "workspace" (workspace id and token), or "none"
    # The route makes B state under the ids it names (a grant makes its document, a member its
    # organization): it runs after every other route, so that their probes still find the
    # A-only ids absent from B.
    makes: bool = False


def no_id(why: str, *bodies: Json, credentials: str = "key") -> Probe:
    return Probe(list(bodies) or [{}], why, credentials)


CREATES = "creates in B's own namespace; the same ids made by both at the start show one "
CREATES += "workspace's ids are free in the other"
OWN = "reads or changes the caller's own workspace settings, named by its credentials alone"
PUBLIC = "public, about an email address alone: it holds no workspace's ids"
ALERTS = "alert ids are the key's own and A's state raises none (the API tests show another "
ALERTS += "workspace's alert id is NOT_FOUND)"
UPKEEP = "acts on the caller's own memory, named by its credentials alone"


def matrix(a: Seeded, b: Seeded) -> dict[str, Probe]:
    """Every route of the document: B's bodies naming A-only ids (or ids both have, where B must
    get its own), or why the route takes none."""
    b_key = b.ws.api_key
    acme = {"organizationId": ORG}
    on_doc = {**acme, "documentId": DOC}
    a_note = {**on_doc, "annotationId": A_NOTE}
    a_comment = {**a_note, "commentId": a.comments[A_NOTE]}
    a_exec, a_step = a.waiting[A_DEFINITION]
    shared_exec, shared_step = a.waiting[DEFINITION]
    a_steps = [
        {"executionId": a_exec, "stepId": a_step},
        {"executionId": shared_exec, "stepId": shared_step},
    ]
    grant = {"type": "document", "id": A_DOC, "organizationId": ORG, "accessRole": "editor"}
    text = base64.b64encode(b"bravo probe\n").decode()
    file = {"base64": text, "mimeType": TEXT, "fileName": "probe.txt", "fileSize": 12}
    flow = review(A_DEFINITION, "bravo")
    return {
        "/v1/commentannotations/comments/delete": Probe(
            [a_note, {**a_note, "commentIds": [a.comments[A_NOTE]]}]
        ),
        "/v1/commentannotations/comments/get": Probe([a_note, {**on_doc, "annotationId": NOTE}]),
        # The same endpoints under the path the hosted reference gives them.
        "/v2/commentannotations/comments/delete": Probe(
            [a_note, {**a_note, "commentIds": [a.comments[A_NOTE]]}]
        ),
        "/v2/commentannotations/comments/get": Probe([a_note, {**on_doc, "annotationId": NOTE}]),
        # The log takes records for any organization id: the one made here is B's own, under a
        # new id, so that the later reads' A-only ids stay A's alone.
        "/v2/activities/add": Probe(
            [{"organizationId": A_ORG, "activities": [{"id": "b-new-act", "actionType": "x"}]}]
        ),
        "/v2/activities/delete": Probe(
            [
                {**acme, "activityIds": [A_ACTIVITY]},
                {"organizationId": A_ORG, "activityIds": [ACTIVITY]},
            ]
        ),
        "/v2/activities/get": Probe(
            [acme, {**acme, "activityIds": [A_ACTIVITY, ACTIVITY]}, {"organizationId": A_ORG}]
        ),
        "/v2/activities/update": Probe(
            [
                {**acme, "activityId": A_ACTIVITY, "actionType": "x"},
                # The hosted form: a list of records by id.
                {**acme, "activities": [{"id": A_ACTIVITY, "actionIcon": "bravo"}]},
            ]
        ),
        # B's notification goes to B's own namespace, under a new id (as activities/add).
        "/v2/notifications/add": Probe(
            [
                {
                    "organizationId": A_ORG,
                    "documentId": DOC,
                    "notificationId": "b-new-ntf",
                    "actionUser": {"userId": "x"},
                    "displayHeadlineMessageTemplate": "x",
                    "displayBodyMessage": "y",
                    "notifyUsers": [{"userId": USER}],
                    "notifyAll": False,
                }
            ]
        ),
        "/v2/notifications/get": Probe(
            [
                {**acme, "userId": A_USER},
                {**acme, "documentId": A_DOC},
                {**acme, "userId": USER, "notificationIds": [A_NOTIFICATION, NOTIFICATION]},
                {"organizationId": A_ORG, "userId": USER},
            ]
        ),
        "/v2/notifications/update": Probe(
            [
                {
                    **acme,
                    "notifications": [
                        {"id": A_NOTIFICATION, "readByUserIds": [USER], "displayBodyMessage": "x"}
                    ],
                },
                {**acme, "userId": A_USER, "notifications": [{"id": NOTIFICATION}]},
            ]
        ),
        "/v2/notifications/delete": Probe(
            [
                {**acme, "notificationIds": [A_NOTIFICATION]},
                {**acme, "userId": A_USER},
                {**acme, "documentId": A_DOC},
            ]
        ),
        "/v2/notifications/config/get": Probe(
            [{**acme, "userId": A_USER, "documentIds": [A_DOC], "getOrganizationConfig": True}]
        ),
        # Preferences are per key: B's for A's user id are B's own.
        "/v2/notifications/config/set": Probe(
            [
                {
                    **acme,
                    "userIds": [A_USER, USER],
                    "documentIds": [A_DOC],
                    "config": {"inbox": "NONE"},
                }
            ],
            makes=True,
        ),
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
        "/v2/commentannotations/add": Probe(
            [
                {
                    "organizationId": A_ORG,
                    "documentId": DOC,
                    "createOrganization": False,
                    "createDocument": False,
                    "commentAnnotations": [{"commentData": [{"from": {"userId": "x"}}]}],
                },
                {
                    **acme,
                    "documentId": A_DOC,
                    "createDocument": False,
                    "commentAnnotations": [{"commentData": [{"from": {"userId": "x"}}]}],
                },
            ]
        ),
        "/v2/commentannotations/comments/add": Probe(
            [{**a_note, "commentData": [{"from": {"userId": "x"}, "commentText": "x"}]}]
        ),
        "/v2/commentannotations/comments/update": Probe([{**a_comment, "commentText": "x"}]),
        "/v2/commentannotations/count/get": Probe(
            [
                {**acme, "documentIds": [DOC, A_DOC], "userId": USER},
                {"organizationId": A_ORG, "documentIds": [DOC], "userId": USER},
            ]
        ),
        "/v2/commentannotations/delete": Probe(
            [{**on_doc, "annotationIds": [A_NOTE]}, {**acme, "documentId": A_DOC}]
        ),
        "/v2/commentannotations/get": Probe(
            [
                acme,
                {**acme, "annotationIds": [A_NOTE, NOTE, SUGGESTION]},
                {**acme, "documentId": A_DOC},
                {"organizationId": A_ORG},
            ]
        ),
        "/v2/commentannotations/reactions/add": Probe(
            [{**a_comment, "icon": "heart", "user": {"userId": "x"}}]
        ),
        "/v2/commentannotations/reactions/delete": Probe(
            [{**a_comment, "icon": "heart", "user": {"userId": "carol"}}]
        ),
        "/v2/commentannotations/suggestions/resolve": Probe(
            [{**on_doc, "annotationId": A_IDEA, "action": "accept", "user": {"userId": "x"}}]
        ),
        "/v2/commentannotations/update": Probe(
            [
                {**on_doc, "annotationIds": [A_NOTE], "updatedData": [{"context": {"x": 1}}]},
                {**acme, "documentId": A_DOC, "updatedData": [{"context": {"x": 1}}]},
            ]
        ),
        "/v2/memory/alerts/action": no_id(ALERTS, {"alertId": "alert_unknown"}),
        "/v2/memory/alerts/config/get": no_id(OWN),
        "/v2/memory/alerts/config/update": no_id(OWN, {"config": {"owner": "b team"}}),
        "/v2/memory/alerts/dismiss": no_id(
            ALERTS, {"alertId": "alert_unknown", "user": {"uid": "carol"}}
        ),
        "/v2/memory/alerts/list": no_id("lists the caller's own alerts, takes no id"),
        "/v2/memory/ask": Probe(
            [
                {"question": "why was the rewrite refused?"},
                {"question": "why was the rewrite refused?", "organizationId": A_ORG},
                {"question": "why?", **acme, "filters": {"annotationId": SUGGESTION}},
            ]
        ),
        "/v2/memory/judgments/query": Probe(
            [{}, on_doc, {**acme, "annotationId": SUGGESTION}, {"organizationId": A_ORG}]
        ),
        "/v2/memory/knowledge/delete": Probe([{"sourceId": a.source_id}]),
        "/v2/memory/knowledge/download": Probe([{"sourceId": a.source_id}]),
        "/v2/memory/knowledge/ingest": Probe(
            [
                {"source": "inline", "file": file},
                {"source": "fileRef", "fileRef": a.file_ref, "mimeType": TEXT},
            ]
        ),
        "/v2/memory/knowledge/ingest-status": Probe([{"sourceId": a.source_id}]),
        "/v2/memory/knowledge/list": no_id("lists the caller's own sources, takes no id"),
        "/v2/memory/knowledge/rules": Probe([{}, {"sourceId": a.source_id}]),
        "/v2/memory/knowledge/search": Probe(
            [
                {"query": "refunds to the original card", "includeRules": True},
                {"query": "refunds", "sourceId": a.source_id},
            ]
        ),
        "/v2/memory/knowledge/update": Probe(
            [{"sourceId": a.source_id, "newContent": "- Staff must never refund in cash.\n"}]
        ),
        "/v2/memory/knowledge/upload-url": Probe(
            [{"mimeType": TEXT, "fileSize": 10, "organizationId": A_ORG, "documentId": A_DOC}]
        ),
        "/v2/memory/backfill/judgments": no_id(UPKEEP),
        "/v2/memory/consolidation/seed-active-api-keys": no_id(UPKEEP),
        "/v2/memory/consolidation/trigger": no_id(UPKEEP, {"force": True}),
        "/v2/memory/patterns/get": no_id("the caller's own patterns, takes no id"),
        "/v2/memory/profiles/get": Probe([{"targetUserId": "carol"}, {"targetUserId": A_USER}]),
        "/v2/memory/stats/get": no_id("counts of the caller's own memory, takes no id"),
        "/v2/memory/suggest": Probe(
            [
                {"query": "passive voice in the contract"},
                {"query": "passive voice", "organizationId": A_ORG},
                {"query": "passive voice", **on_doc},
            ]
        ),
        "/v2/memory/search": Probe(
            [
                {"query": "passive voice"},
                {"query": "passive voice", **on_doc},
                {"query": "x", **acme, "filters": {"annotationId": SUGGESTION}},
                {"query": "passive voice", "organizationId": A_ORG},
            ]
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
            ]
        ),
        "/v2/users/update": Probe([{**acme, "users": [{"userId": A_USER, "name": "x"}]}]),
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
        "/v2/webhooks/deliveries/list": no_id("lists the caller's own deliveries, takes no id"),
        "/v2/webhooks/deliveries/retry": no_id(
            "A has no delivery to name (no receiver is configured): the id stands for another's",
            {"deliveryIds": ["a-only-delivery"]},
        ),
        "/v2/workflow/definitions/create": no_id(CREATES, review("b-new-def", "bravo")),
        "/v2/workflow/definitions/delete": Probe([{"definitionId": A_DEFINITION, "purge": True}]),
        "/v2/workflow/definitions/get": Probe(
            [{"definitionId": A_DEFINITION}, {"definitionId": DEFINITION}]
        ),
        "/v2/workflow/definitions/list": Probe([{}, {"organizationId": A_ORG}]),
        "/v2/workflow/definitions/update": Probe([{**flow, "ifVersion": 1}]),
        "/v2/workflow/executions/cancel": Probe(
            [{"executionId": a_exec}, {"executionId": shared_exec}]
        ),
        "/v2/workflow/executions/dispatch": Probe(
            [{"definitionId": A_DEFINITION}, {"definitionId": DEFINITION, "organizationId": A_ORG}]
        ),
        "/v2/workflow/executions/get": Probe(
            [{"executionId": a_exec}, {"executionId": shared_exec}]
        ),
        "/v2/workflow/executions/getEvents": Probe(
            [{"executionId": a_exec}, {"executionId": shared_exec}]
        ),
        "/v2/workflow/executions/list": Probe([{}, {"definitionId": A_DEFINITION}]),
        "/v2/workflow/steps/cancel": Probe([{**s, "actorId": "x"} for s in a_steps]),
        "/v2/workflow/steps/recordAgentResolution": Probe(
            [{**s, "responseId": "x", "resolution": "resolved", "actorId": "x"} for s in a_steps]
        ),
        "/v2/workflow/steps/recordReviewerDecision": Probe(
            [{**s, "reviewerId": USER, "decision": "approve"} for s in a_steps]
        ),
        "/v2/workflow/steps/resolve": Probe(
            [{**s, "action": "force-approve", "actorId": "x"} for s in a_steps]
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

"""The tenancy matrix's table: for every route of the document, the bodies workspace B sends
naming A-only state, or why the route takes no id of another workspace."""

from __future__ import annotations

import base64

from tests.api.knowledge_support import TEXT
from tests.api.tenancy_identity_routes import identity_matrix
from tests.api.tenancy_probes import ALERTS, CREATES, OWN, UPKEEP, Probe, no_id
from tests.api.tenancy_support import (
    A_ACTIVITY,
    A_DEFINITION,
    A_DOC,
    A_IDEA,
    A_NOTE,
    A_NOTIFICATION,
    A_ORG,
    A_USER,
    ACTIVITY,
    DEFINITION,
    DOC,
    NOTE,
    NOTIFICATION,
    ORG,
    SUGGESTION,
    USER,
    Seeded,
    review,
)


def matrix(a: Seeded, b: Seeded) -> dict[str, Probe]:
    """Every route of the document: B's bodies naming A-only ids (or ids both have, where B must
    get its own), or why the route takes none."""
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
        "/v2/workflow/slack/config/get": no_id(OWN),
        "/v2/workflow/slack/config/update": no_id(OWN, {"botToken": None}),
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
        **identity_matrix(a, b),
    }

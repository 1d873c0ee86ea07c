"""The reference's example requests for adding and reading comment annotations, and the
organizations and documents they name (made by those pages' own examples with those ids).

Ids the server generates (annotation, comment, activity and notification ids) are pasted from
earlier answers (`$annotationId`, ...); a second placeholder id of the same kind
(`yourAnnotationId2`, `607395`) is left as the page writes it and names nothing, as in the pages'
own "not found" answers.
"""

from __future__ import annotations

from typing import Any

from tests.api.replay_support import Sample

ANNOTATIONS = "/v2/commentannotations"
USER = {"userId": "user_john_smith", "name": "John Smith", "email": "john.smith@acme-corp.com"}


def organization(organization_id: str) -> Sample:
    return Sample(
        page=f"organizations/add: add organization ({organization_id})",
        path="/v2/organizations/add",
        data={
            "organizations": [
                {"organizationId": organization_id, "organizationName": "Your Organization Name"}
            ]
        },
    )


def document(organization_id: str, document_id: str) -> Sample:
    return Sample(
        page=f"documents/add: create new documents ({organization_id}/{document_id})",
        path="/v2/organizations/documents/add",
        data={
            "organizationId": organization_id,
            "documents": [{"documentId": document_id, "documentName": "Your Document Name"}],
        },
    )


YOUR_DOCUMENT = [
    organization("yourOrganizationId"),
    document("yourOrganizationId", "yourDocumentId"),
]

ADD_BY_LOCATION = Sample(
    # The page's "yourUserEmail" is kept: the reference does not check the author's email.
    page="commentannotations/add: by organizationId, documentId and location",
    path=f"{ANNOTATIONS}/add",
    data={
        "organizationId": "yourOrganizationId",
        "documentId": "yourDocumentId",
        "commentAnnotations": [
            {
                "location": {"id": "yourLocationId", "locationName": "yourLocationName"},
                "targetElement": {
                    "elementId": "yourElementId",
                    "targetText": "Your Target Text",
                    "occurrence": 1,
                    "selectAllContent": False,
                },
                "commentData": [
                    {
                        "commentText": "Sample Comment",
                        "commentHtml": "<div>Sample Comment</div>",
                        "from": {
                            "userId": "yourUserId",
                            "name": "yourUserName",
                            "email": "yourUserEmail",
                        },
                    }
                ],
            }
        ],
    },
    fields=("data.*.success", "data.*.annotationId", "data.*.commentIds.0", "data.*.message"),
    save={"annotationId": "data.*.annotationId", "commentId": "data.*.commentIds.0"},
)


def acme_add(page: str, annotation: dict[str, Any], **extra: Any) -> Sample:
    return Sample(
        page=f"commentannotations/add: {page}",
        path=f"{ANNOTATIONS}/add",
        data={
            "organizationId": "acme-corp",
            "documentId": extra.pop("documentId", "design-mockup-v2"),
            **extra,
            "commentAnnotations": [annotation],
        },
        fields=("data.*.success", "data.*.annotationId", "data.*.commentIds"),
    )


ANNOTATION_ADDS = [
    ADD_BY_LOCATION,
    acme_add(
        "with user tagging",
        {
            "commentData": [
                {
                    "triggerNotification": True,
                    "commentText": "Hey {{user_sarah_chen}}, can you review this color scheme? "
                    "I think we should use a darker shade for better contrast.",
                    "commentHtml": "<p>Hey {{user_sarah_chen}}, can you review this color "
                    "scheme? I think we should use a darker shade for better contrast.</p>",
                    "from": USER,
                    "taggedUserContacts": [
                        {
                            "userId": "user_sarah_chen",
                            "contact": {
                                "userId": "user_sarah_chen",
                                "name": "Sarah Chen",
                                "email": "sarah.chen@acme-corp.com",
                            },
                        }
                    ],
                }
            ]
        },
    ),
    acme_add(
        "with permission verification",
        {"commentData": [{"commentText": "Please review this section", "from": USER}]},
        verifyUserPermissions=True,
    ),
    acme_add(
        "with activity tracking",
        {
            "commentData": [
                {
                    "commentText": "This needs review",
                    "triggerNotification": True,
                    "triggerActivities": True,
                    "from": {"userId": "user-1", "email": "user@example.com", "name": "User Name"},
                }
            ]
        },
    ),
    acme_add(
        "with access context",
        {
            "context": {"access": {"entityId": "numberOfVisitors", "dashboardId": "myDashboard"}},
            "commentData": [{"commentText": "Traffic numbers look unusual today", "from": USER}],
        },
        documentId="analytics-dashboard",
    ),
    acme_add(
        "an agent suggestion (finding)",
        {
            "type": "suggestion",
            "commentData": [
                {
                    "commentText": "Heading has a spelling mistake: 'Welcom' should be 'Welcome'.",
                    "from": {"userId": "spell-check", "name": "Spell Check Agent"},
                    "agent": {
                        "agentSource": "velt",
                        "agentId": "spell-check",
                        "executionId": "exec_123",
                        "url": "https://example.com/design-mockup-v2",
                        "reason": {
                            "title": "Spelling error",
                            "description": "The word 'Welcom' is misspelled.",
                            "severity": "low",
                            "findingType": "text",
                            "confidence": 98,
                            "suggestedFix": "Welcome",
                            "source": "instructions",
                        },
                    },
                }
            ],
        },
    ),
    acme_add(
        "an agent suggestion from an external agent",
        {
            "type": "suggestion",
            "commentData": [
                {
                    "commentText": "This button has insufficient color contrast.",
                    "from": {"userId": "a11y-bot"},
                    "agent": {
                        "agentSource": "external",
                        "agentName": "Accessibility Bot",
                        "agentId": "a11y-bot",
                        "reason": {
                            "title": "Low color contrast",
                            "description": "Contrast ratio is 2.1:1, below the 4.5:1 WCAG AA "
                            "threshold.",
                            "severity": "high",
                            "findingType": "pin",
                        },
                    },
                }
            ],
        },
    ),
    acme_add(
        "a suggestion with a proposed-change payload",
        {
            "type": "suggestion",
            "suggestion": {
                "targetId": "row.123",
                "targetType": "custom",
                "oldValue": {"x": 205},
                "newValue": {"x": 305},
                "summary": "row.123: 205 → 305",
                "driftDetected": False,
                "myCustomField": "kept as-is",
            },
            "commentData": [
                {
                    "commentText": "Bump x from 205 to 305 to match the spec.",
                    "from": {"userId": "user_sarah_chen", "name": "Sarah Chen"},
                }
            ],
        },
    ),
    acme_add(
        "a private (restricted) comment annotation",
        {
            "visibility": {"type": "restricted", "userIds": ["user_sarah_chen", "user_john_smith"]},
            "commentData": [
                {"commentText": "Internal note: don't ship this section yet.", "from": USER}
            ],
        },
    ),
]

ANNOTATION_FIELDS = ("data.0.annotationId", "data.0.comments.0.commentText", "data.0.from")
PLACEHOLDER_TOKEN = {"pageSize": 10, "pageToken": "1720441573192", "statusId": "OPEN"}
YOURS = {"organizationId": "yourOrganizationId", "documentId": "yourDocumentId"}
TWO_ANNOTATIONS = ["$annotationId", "yourAnnotationId2"]


def annotation_get(page: str, data: dict[str, Any]) -> list[Sample]:
    """The page's example, whose `pageToken` is a placeholder no server issued (Redline's tokens
    are signed: INVALID_ARGUMENT at data.pageToken), then the same filters without it."""
    return [
        Sample(
            page=f"commentannotations/get: {page}",
            path=f"{ANNOTATIONS}/get",
            data={**YOURS, **data, **PLACEHOLDER_TOKEN},
            expect="INVALID_ARGUMENT",
        ),
        Sample(
            page=f"commentannotations/get: {page}, without the placeholder token",
            path=f"{ANNOTATIONS}/get",
            data={**YOURS, **data, "pageSize": 10, "statusId": "OPEN"},
            fields=("data",),
        ),
    ]


ANNOTATION_GETS = [
    *annotation_get("by organizationId and documentId", {}),
    Sample(
        page="commentannotations/get: by documentIds grouped by documentId",
        path=f"{ANNOTATIONS}/get",
        data={
            "organizationId": "yourOrganizationId",
            "documentIds": ["yourDocumentId1", "yourDocumentId2"],
            "groupByDocumentId": True,
        },
        fields=("data",),
    ),
    *annotation_get("by documentId and locationIds", {"locationIds": ["locationx"]}),
    *annotation_get(
        "by documentId, locationIds and userIds",
        {"locationIds": ["locationx"], "userIds": ["yourUserId"]},
    ),
    *annotation_get("by documentId and userIds", {"userIds": ["yourUserId"]}),
    # Annotations asked for by id are answered in one page, so the token is not read. The
    # annotation has no status, so statusId OPEN leaves null in its place.
    Sample(
        page="commentannotations/get: by documentId and annotationIds",
        path=f"{ANNOTATIONS}/get",
        data={**YOURS, "annotationIds": TWO_ANNOTATIONS, **PLACEHOLDER_TOKEN},
        fields=("data.0", "data.1"),
    ),
    Sample(
        page="commentannotations/get: by documentId, locationIds and annotationIds",
        path=f"{ANNOTATIONS}/get",
        data={
            **YOURS,
            "locationIds": ["locationx"],
            "annotationIds": TWO_ANNOTATIONS,
            **PLACEHOLDER_TOKEN,
        },
        fields=("data.0", "data.1"),
    ),
    Sample(
        page="commentannotations/get: by annotationIds (the first one found, the other null)",
        path=f"{ANNOTATIONS}/get",
        data={**YOURS, "annotationIds": TWO_ANNOTATIONS},
        fields=(*ANNOTATION_FIELDS, "data.1"),
    ),
    Sample(
        page="commentannotations/get: by userIds",
        path=f"{ANNOTATIONS}/get",
        data={**YOURS, "userIds": ["yourUserId"]},
        fields=ANNOTATION_FIELDS,
    ),
    Sample(
        page="commentannotations/get: by organizationId, statusIds, updatedAfter, updatedBefore",
        path=f"{ANNOTATIONS}/get",
        data={
            "organizationId": "myorg1",
            "statusIds": ["OPEN"],
            "updatedAfter": 1720441573192,
            "updatedBefore": 1720441573192,
        },
        fields=("data",),
    ),
    Sample(
        # No folder folderId1 exists in myorg1: it holds no documents, so no annotations.
        page="commentannotations/get: by organizationId, folderId",
        path=f"{ANNOTATIONS}/get",
        data={"organizationId": "myorg1", "folderId": "folderId1"},
        fields=("data",),
    ),
    Sample(
        page="commentannotations/get: agent annotations by agentId",
        path=f"{ANNOTATIONS}/get",
        data={**YOURS, "agentId": "spell-check"},
        fields=("data",),
    ),
    Sample(
        page="commentannotations/count/get",
        path=f"{ANNOTATIONS}/count/get",
        data={
            "organizationId": "ORG_ID",
            "documentIds": ["DOC_1", "DOC_2"],
            "userId": "1.1",
            "statusIds": ["OPEN", "IN_PROGRESS"],
        },
        fields=("data.DOC_1.total", "data.DOC_1.unread", "data.DOC_2.total"),
    ),
]

"""The reference's example requests for comment annotations, comments, activity logs and in-app
notifications, in an order that lets later examples find what earlier ones made.

Each group starts in a workspace of its own with the organizations and documents its examples
name, made by the organizations and documents pages' own examples with those ids. Ids the server
generates (annotation, comment, activity and notification ids) are pasted from earlier answers
(`$annotationId`, ...); a second placeholder id of the same kind (`yourAnnotationId2`, `607395`)
is left as the page writes it and names nothing, as in the pages' own "not found" answers.
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

IN_PROGRESS = {"status": {"id": "inprogress", "name": "In Progress", "type": "ongoing"}}
UPDATED = ("data.${annotationId}.success", "data.yourAnnotationId2.success")


def annotation_update(page: str, data: dict[str, Any], fields: tuple[str, ...] = UPDATED) -> Sample:
    return Sample(
        page=f"commentannotations/update: {page}",
        path=f"{ANNOTATIONS}/update",
        data={**YOURS, **data},
        fields=fields,
    )


ANNOTATION_UPDATES = [
    annotation_update(
        "all by organizationId and documentId",
        {"annotationIds": TWO_ANNOTATIONS, "updatedData": IN_PROGRESS},
    ),
    annotation_update(
        "by locationIds",
        {
            "locationIds": ["locationx"],
            "annotationIds": TWO_ANNOTATIONS,
            "updatedData": IN_PROGRESS,
        },
    ),
    annotation_update(
        "by locationIds and userIds",
        {
            "locationIds": ["locationx"],
            "userIds": ["yourUserId"],
            "annotationIds": TWO_ANNOTATIONS,
            "updatedData": IN_PROGRESS,
        },
    ),
    annotation_update(
        "by userIds",
        {"userIds": ["yourUserId"], "annotationIds": TWO_ANNOTATIONS, "updatedData": IN_PROGRESS},
    ),
    annotation_update(
        "by annotationIds", {"annotationIds": TWO_ANNOTATIONS, "updatedData": IN_PROGRESS}
    ),
    annotation_update(
        "by locationIds and annotationIds",
        {
            "locationIds": ["locationx"],
            "annotationIds": TWO_ANNOTATIONS,
            "updatedData": IN_PROGRESS,
        },
    ),
    annotation_update(
        # The page's "newUserEmail" is kept: the reference does not check users' emails.
        "update users",
        {
            "annotationIds": TWO_ANNOTATIONS,
            "updateUsers": [
                {
                    "oldUser": {"userId": "oldUserId"},
                    "newUser": {
                        "userId": "newUserId",
                        "name": "newUserName",
                        "email": "newUserEmail",
                    },
                }
            ],
        },
    ),
    annotation_update(
        "with access context",
        {
            "annotationIds": ["$annotationId"],
            "updatedData": {
                "context": {
                    "access": {"entityId": "numberOfAccounts", "dashboardId": "salesDashboard"}
                }
            },
        },
        ("data.${annotationId}.success", "data.${annotationId}.id"),
    ),
    annotation_update(
        "resolve and record who resolved it",
        {
            "annotationIds": ["$annotationId"],
            "updatedData": {
                "status": {"id": "RESOLVED", "name": "Resolved", "type": "terminal"},
                "resolvedByUserId": "yourUserId",
                "statusUpdatedByUserId": "yourUserId",
            },
        },
        ("data.${annotationId}.success",),
    ),
    annotation_update(
        "reopen",
        {
            "annotationIds": ["$annotationId"],
            "updatedData": {
                "status": {"id": "OPEN", "name": "Open", "type": "default"},
                "statusUpdatedByUserId": "yourUserId",
            },
        },
        ("data.${annotationId}.success",),
    ),
    annotation_update(
        "Postman: every annotation of the document",
        {"updatedData": IN_PROGRESS},
        ("data.${annotationId}.success",),
    ),
    Sample(
        # The Postman collection's form also names the new status by its type alone; a status
        # needs its id (the reference's status object requires it): INVALID_ARGUMENT.
        page="commentannotations/update: Postman: status type only",
        path=f"{ANNOTATIONS}/update",
        data={**YOURS, "updatedData": {"status": {"type": "ongoing"}}},
        expect="INVALID_ARGUMENT",
    ),
]


def annotation_delete(page: str, data: dict[str, Any], fields: tuple[str, ...] = ()) -> Sample:
    return Sample(
        page=f"commentannotations/delete: {page}",
        path=f"{ANNOTATIONS}/delete",
        data=data,
        fields=("data", *fields),
    )


# Narrow filters first, so that each example still has something to select; the document-wide
# example comes after them. Examples 7-12 name a document without its organization, which works
# only for documents made without one; this one has an organization.
ANNOTATION_DELETES = [
    annotation_delete(
        "13. an agent's pending suggestions for specific pages",
        {
            **YOURS,
            "agentId": "spell-check",
            "agentSuggestions": True,
            "agentUrls": ["https://example.com/pricing"],
        },
    ),
    annotation_delete("2. by locationIds", {**YOURS, "locationIds": ["locationx"]}),
    annotation_delete(
        "3. by locationIds and userIds",
        {**YOURS, "locationIds": ["locationx"], "userIds": ["yourUserId"]},
    ),
    annotation_delete(
        "6. by locationIds and annotationIds",
        {**YOURS, "locationIds": ["locationx"], "annotationIds": TWO_ANNOTATIONS},
    ),
    annotation_delete(
        "5. by annotationIds",
        {**YOURS, "annotationIds": TWO_ANNOTATIONS},
        (
            "data.${annotationId}.success",
            "data.${annotationId}.id",
            "data.yourAnnotationId2.message",
        ),
    ),
    annotation_delete("4. by userIds", {**YOURS, "userIds": ["yourUserId"]}),
    annotation_delete("1. by organizationId and documentId", YOURS),
    *[
        Sample(
            page=f"commentannotations/delete: {page} (document without organization)",
            path=f"{ANNOTATIONS}/delete",
            data={"documentId": "yourDocumentId", **data},
            expect="INVALID_ARGUMENT",
        )
        for page, data in [
            ("7. by documentId", {}),
            ("8. by documentId and locationIds", {"locationIds": ["locationx"]}),
            ("9. by documentId and userIds", {"userIds": ["yourUserId"]}),
            ("10. by documentId and annotationIds", {"annotationIds": TWO_ANNOTATIONS}),
            (
                "11. by documentId, locationIds and userIds",
                {"locationIds": ["locationx"], "userIds": ["yourUserId"]},
            ),
            (
                "12. by documentId, locationIds and annotationIds",
                {"locationIds": ["locationx"], "annotationIds": TWO_ANNOTATIONS},
            ),
        ]
    ],
]

COMMENT_ANNOTATION_SAMPLES = [
    *YOUR_DOCUMENT,
    organization("acme-corp"),
    document("acme-corp", "design-mockup-v2"),
    document("acme-corp", "analytics-dashboard"),
    *ANNOTATION_ADDS,
    *ANNOTATION_GETS,
    *ANNOTATION_UPDATES,
    *ANNOTATION_DELETES,
]

COMMENTS = f"{ANNOTATIONS}/comments"
IN_ANNOTATION = {**YOURS, "annotationId": "$annotationId"}
TWO_COMMENTS = ["$commentId", 607395]
ATTACHMENT = {
    "attachmentId": 100001,
    "name": "screenshot.png",
    "bucketPath": "attachments/org-123/doc-456/screenshot.png",
    "size": 1024000,
    "type": "image",
    "url": "https://storage.googleapis.com/bucket/screenshot.png",
    "thumbnail": "https://storage.googleapis.com/bucket/screenshot_thumb.png",
    "mimeType": "image/png",
    "metadata": {"width": 1920, "height": 1080, "uploadedAt": 1696118400000},
}
HELLO = {"commentText": "Sample Comment", "commentHtml": "<div>Hello</div>"}

COMMENT_ADDS = [
    Sample(
        page="comments/add: by organizationId, documentId and annotationId",
        path=f"{COMMENTS}/add",
        data={**IN_ANNOTATION, "commentData": [{**HELLO, "from": {"userId": "yourUserId"}}]},
        fields=("data.0",),
        save={"addedCommentId": "data.0"},
    ),
    Sample(
        page="comments/add: with permission verification",
        path=f"{COMMENTS}/add",
        data={
            **IN_ANNOTATION,
            "verifyUserPermissions": True,
            "commentData": [{**HELLO, "from": {"userId": "yourUserId"}}],
        },
        fields=("data.0",),
    ),
    Sample(
        page="comments/add: with attachments",
        path=f"{COMMENTS}/add",
        data={
            "organizationId": "yourOrganizationId",
            "createOrganization": True,
            "documentId": "yourDocumentId",
            "createDocument": True,
            "annotationId": "$annotationId",
            "commentData": [
                {
                    "commentId": 123,
                    "commentText": "Please review this screenshot",
                    "commentHtml": "<div>Please review this screenshot</div>",
                    "context": {},
                    "attachments": [ATTACHMENT],
                    "from": {"userId": "yourUserId"},
                }
            ],
        },
        fields=("data.0",),
    ),
    Sample(
        page="comments/add: an agent reply",
        path=f"{COMMENTS}/add",
        data={
            **IN_ANNOTATION,
            "commentData": [
                {
                    "commentText": "I fixed the spelling. Please re-review.",
                    "from": {"userId": "spell-check", "name": "Spell Check Agent"},
                    "agent": {
                        "agentSource": "velt",
                        "agentId": "spell-check",
                        "executionId": "exec_124",
                        "reason": {
                            "title": "Spelling corrected",
                            "description": "Updated 'Welcom' to 'Welcome'.",
                            "severity": "info",
                            "findingType": "text",
                        },
                    },
                }
            ],
        },
        fields=("data.0",),
    ),
    Sample(
        # The Postman collection's form: createOrganization/createDocument as objects, the author
        # as userName/userEmail, and comment metadata. Its values are type descriptions
        # ("string (required)"); the pages' ids stand in for them. The reference (and the SDK)
        # make the two flags booleans: INVALID_ARGUMENT at data.createOrganization.
        page="comments/add: Postman form",
        path=f"{COMMENTS}/add",
        data={
            "organizationId": "yourOrganizationId",
            "createOrganization": {"organizationName": "Org", "organizationType": "team"},
            "documentId": "yourDocumentId",
            "createDocument": {"documentName": "Doc", "documentType": "page"},
            "annotationId": "$annotationId",
            "commentData": [
                {
                    "commentText": "Sample Comment",
                    "commentHtml": "<div>Hello</div>",
                    "from": {
                        "userId": "yourUserId",
                        "userName": "Your Name",
                        "userEmail": "you@example.com",
                    },
                    "metadata": {"key": "value"},
                }
            ],
        },
        expect="INVALID_ARGUMENT",
    ),
]

COMMENT_SAMPLES_AFTER_ADD = [
    Sample(
        page="comments/get: all comments of an annotation",
        path=f"{COMMENTS}/get",
        data=IN_ANNOTATION,
        fields=("data.0.commentId", "data.0.commentText", "data.0.from", "data.0.lastUpdated"),
    ),
    Sample(
        page="comments/get: specific comments (the first found, the other null)",
        path=f"{COMMENTS}/get",
        data={**IN_ANNOTATION, "commentIds": TWO_COMMENTS},
        fields=("data.0.commentId", "data.0.commentHtml", "data.0.type", "data.1"),
    ),
    Sample(
        # The Postman collection adds userIds; its values are type descriptions.
        page="comments/get: Postman form with userIds",
        path=f"{COMMENTS}/get",
        data={**IN_ANNOTATION, "userIds": ["yourUserId"], "commentIds": [12345, 67890]},
        fields=("data.0", "data.1"),
    ),
    Sample(
        page="comments/update: by commentIds",
        path=f"{COMMENTS}/update",
        data={
            **IN_ANNOTATION,
            "commentIds": TWO_COMMENTS,
            "updatedData": {
                "commentText": "Sample Updated Comment",
                "commentHtml": "<div>Hello Updated</div>",
            },
        },
        fields=("data.${commentId}.success", "data.${commentId}.id", "data.607395.success"),
    ),
    Sample(
        page="comments/update: with attachments",
        path=f"{COMMENTS}/update",
        data={
            **IN_ANNOTATION,
            "commentIds": ["$commentId"],
            "updatedData": {
                "commentText": "Updated comment text with new attachments",
                "commentHtml": "<p>Updated comment text with <em>new attachments</em></p>",
                "attachments": [
                    {
                        **ATTACHMENT,
                        "name": "updated-screenshot.png",
                        "bucketPath": "attachments/org-123/doc-456/updated-screenshot.png",
                        "size": 1536000,
                        "url": "https://storage.googleapis.com/bucket/updated-screenshot.png",
                        "thumbnail": "https://storage.googleapis.com/bucket/"
                        "updated-screenshot_thumb.png",
                        "metadata": {"width": 1920, "height": 1080, "updatedAt": 1696122000000},
                    }
                ],
            },
        },
        fields=("data.${commentId}.success",),
    ),
    Sample(
        # A reply first: the page's example 1 deletes every comment, and with them the annotation.
        page="comments/delete: specific comments",
        path=f"{COMMENTS}/delete",
        data={**IN_ANNOTATION, "commentIds": ["$addedCommentId", 607395]},
        fields=(
            "data.${addedCommentId}.success",
            "data.${addedCommentId}.id",
            "data.607395.success",
        ),
    ),
    Sample(
        page="comments/delete: all comments of an annotation",
        path=f"{COMMENTS}/delete",
        data=IN_ANNOTATION,
        fields=("data.${commentId}.success",),
    ),
]

COMMENT_SAMPLES = [*YOUR_DOCUMENT, ADD_BY_LOCATION, *COMMENT_ADDS, *COMMENT_SAMPLES_AFTER_ADD]

ACTIVITIES = "/v2/activities"
ACTION_USER = {"userId": "user-1", "email": "user@example.com", "name": "User Name"}
TEMPLATE_USER = {"user": {"userId": "user-1", "name": "User Name"}}
ORG_DOC = {"organizationId": "org-123", "documentId": "doc-456"}
ADDED = ("data.success", "data.message")


def activity_add(page: str, activity: dict[str, Any]) -> Sample:
    return Sample(
        page=f"activities/add: {page}",
        path=f"{ACTIVITIES}/add",
        data={**ORG_DOC, "activities": [activity]},
        fields=ADDED,
    )


ACTIVITY_SAMPLES = [
    Sample(
        page="workspace/activityconfig/update",
        path="/v2/workspace/activityconfig/update",
        data={"activityServiceConfig": {"isEnabled": True, "immutable": False}},
        fields=("data.activityServiceConfig.isEnabled", "data.activityServiceConfig.enabledTime"),
    ),
    activity_add(
        "a single activity log",
        {
            "featureType": "comment",
            "actionType": "comment.add",
            "actionUser": ACTION_USER,
            "displayMessageTemplate": "{{user}} added a comment",
        },
    ),
    activity_add(
        "with a custom ID",
        {
            "id": "my-custom-activity-id",
            "featureType": "comment",
            "actionType": "comment.add",
            "actionUser": ACTION_USER,
            "targetEntityId": "annotation-789",
            "displayMessageTemplate": "{{user}} added a comment",
        },
    ),
    activity_add(
        "a custom featureType activity",
        {
            "featureType": "custom",
            "actionType": "statusChanged",
            "actionUser": ACTION_USER,
            "targetEntityId": "entity-456",
            "displayMessageTemplate": "{{user}} changed the status",
        },
    ),
    activity_add(
        "with changes and template data",
        {
            "featureType": "comment",
            "actionType": "comment.update",
            "actionUser": ACTION_USER,
            "targetEntityId": "annotation-789",
            "targetSubEntityId": "comment-001",
            "changes": {"commentText": {"from": "Original text", "to": "Updated text"}},
            "displayMessageTemplate": "{{user}} updated a comment",
            "displayMessageTemplateData": TEMPLATE_USER,
        },
    ),
    Sample(
        page="activities/get: by organizationId and documentId",
        path=f"{ACTIVITIES}/get",
        data={**ORG_DOC, "order": "desc", "pageSize": 50},
        fields=(
            "data.0.id",
            "data.0.featureType",
            "data.0.actionType",
            "data.0.actionUser",
            "data.0.metadata.documentId",
            "data.0.timestamp",
        ),
        save={"activityId1": "data.0.id", "activityId2": "data.1.id"},
    ),
    Sample(
        page="activities/get: by featureTypes",
        path=f"{ACTIVITIES}/get",
        data={**ORG_DOC, "featureTypes": ["comment"], "order": "desc", "pageSize": 50},
        fields=("data.0.id", "data.0.displayMessageTemplate"),
    ),
    Sample(
        page="activities/get: by activityIds",
        path=f"{ACTIVITIES}/get",
        data={"organizationId": "org-123", "activityIds": ["$activityId1", "$activityId2"]},
        fields=("data.0.id", "data.1.id"),
    ),
    Sample(
        # The page's token is a placeholder; a token Redline never issued is refused.
        page="activities/get: by targetEntityId with pagination",
        path=f"{ACTIVITIES}/get",
        data={
            **ORG_DOC,
            "targetEntityId": "annotation-789",
            "pageSize": 20,
            "pageToken": "encryptedPageToken",
        },
        expect="INVALID_ARGUMENT",
    ),
    Sample(
        page="activities/get: by targetEntityId without the placeholder token",
        path=f"{ACTIVITIES}/get",
        data={**ORG_DOC, "targetEntityId": "annotation-789", "pageSize": 20},
        fields=("data.0.targetEntityId", "data.1.targetEntityId"),
    ),
    Sample(
        page="activities/update: a single activity's display message",
        path=f"{ACTIVITIES}/update",
        data={
            "organizationId": "org-123",
            "activities": [
                {"id": "$activityId1", "displayMessageTemplate": "{{user}} updated the comment"}
            ],
        },
        fields=("data.${activityId1}.success", "data.${activityId1}.message"),
    ),
    Sample(
        page="activities/update: multiple activities",
        path=f"{ACTIVITIES}/update",
        data={
            "organizationId": "org-123",
            "activities": [
                {
                    "id": "$activityId1",
                    "displayMessageTemplate": "{{user}} updated the comment",
                    "displayMessageTemplateData": TEMPLATE_USER,
                },
                {"id": "$activityId2", "actionIcon": "https://example.com/icons/edit.svg"},
            ],
        },
        fields=("data.${activityId1}.success", "data.${activityId2}.success"),
    ),
    Sample(
        page="activities/delete: by activityIds",
        path=f"{ACTIVITIES}/delete",
        data={"organizationId": "org-123", "activityIds": ["$activityId1", "$activityId2"]},
        fields=("data.${activityId1}.success", "data.${activityId2}.message"),
    ),
    Sample(
        page="activities/delete: by documentId and targetEntityId",
        path=f"{ACTIVITIES}/delete",
        data={**ORG_DOC, "targetEntityId": "annotation-789"},
        fields=("data",),
    ),
    Sample(
        page="activities/delete: all activities for a target entity",
        path=f"{ACTIVITIES}/delete",
        data={"organizationId": "org-123", "targetEntityId": "annotation-789"},
        fields=("data",),
    ),
    Sample(
        page="activities/delete: all activities for a document",
        path=f"{ACTIVITIES}/delete",
        data=ORG_DOC,
        fields=("data.*.success",),
    ),
]

NOTIFICATIONS = "/v2/notifications"
YOUR_USER = {"userId": "yourUserId", "name": "User Name", "email": "user@example.com"}
NOTIFICATION_TOKEN = {"pageSize": 20, "pageToken": "8740648311207869"}
FOUND = ("data.0.id", "data.0.actionUser", "data.0.metadata.documentId", "data.0.timestamp")
BODY_UPDATE = {
    "id": "$notificationId",
    "displayBodyMessage": "This is body message (Secondary message)",
}


def notification_add(page: str, data: dict[str, Any]) -> Sample:
    return Sample(
        page=f"notifications/add: {page}",
        path=f"{NOTIFICATIONS}/add",
        data=data,
        fields=ADDED,
    )


NOTIFICATION_ADDS = [
    Sample(
        page="workspace/notificationconfig/update",
        path="/v2/workspace/notificationconfig/update",
        data={
            "useNotificationService": True,
            "notificationServiceConfig": {"delayConfig": {"isEnabled": True, "delaySeconds": 30}},
        },
        fields=(
            "data.useNotificationService",
            "data.notificationServiceConfig.delayConfig.delaySeconds",
        ),
    ),
    notification_add(
        "example request",
        {
            **YOURS,
            "actionUser": YOUR_USER,
            "displayHeadlineMessageTemplate": "This is main template, you can pass variables "
            "using curly brackets like this: {actionUser}, {recipientUser}, "
            "{yourCustomVariableWithStringValue}",
            "displayHeadlineMessageTemplateData": {
                "actionUser": YOUR_USER,
                "recipientUser": {
                    "userId": "recipientUserId",
                    "name": "Recipient Name",
                    "email": "recipient@example.com",
                },
                "yourCustomField": "Variable will be replaced with this text",
            },
            "displayBodyMessage": "This is body message (Secondary message)",
            "notifyUsers": [{"email": "test@example.com", "userId": "testingUserId"}, YOUR_USER],
        },
    ),
    notification_add(
        "with permission verification",
        {
            "organizationId": "org1",
            "documentId": "document3",
            "actionUser": {"userId": "1.1"},
            "verifyUserPermissions": True,
            "displayHeadlineMessageTemplate": "This is main template, you can pass variables "
            "using curly brackets like this: {actionUser}, {recipientUser}",
            "displayHeadlineMessageTemplateData": {
                "actionUser": {"userId": "1.1"},
                "recipientUser": {"userId": "2.2"},
            },
            "displayBodyMessage": "This is body message (Secondary message)",
            "notifyUsers": [{"userId": "2.2"}],
            "notifyAll": False,
        },
    ),
    notification_add(
        "with context",
        {
            "organizationId": "org1",
            "documentId": "document3",
            "actionUser": {"userId": "1.1", "name": "User One", "email": "user1@example.com"},
            "context": {"access": {"entityId": "numberOfVisitors", "dashboardId": "myDashboard"}},
            "displayHeadlineMessageTemplate": "New comment on {entityName}",
            "displayHeadlineMessageTemplateData": {"entityName": "Visitor Analytics"},
            "displayBodyMessage": "A new comment has been added to the visitor analytics dashboard",
            "notifyUsers": [{"userId": "2.2"}],
            "notifyAll": False,
        },
    ),
    notification_add(
        "with notification resolver",
        {
            **YOURS,
            "actionUser": YOUR_USER,
            "notificationId": "custom-notif-001",
            "isNotificationResolverUsed": True,
            "notificationSource": "custom",
            "notifyUsers": [{"userId": "recipientUserId", "email": "recipient@example.com"}],
            "notifyAll": False,
        },
    ),
]


def notification_get(
    page: str, data: dict[str, Any], fields: tuple[str, ...] = FOUND
) -> list[Sample]:
    """The page's example, whose `pageToken` is a placeholder no server issued (Redline's tokens
    are signed: INVALID_ARGUMENT at data.pageToken), then the same filters without it."""
    return [
        Sample(
            page=f"notifications/get: {page}",
            path=f"{NOTIFICATIONS}/get",
            data={**data, **NOTIFICATION_TOKEN},
            expect="INVALID_ARGUMENT",
        ),
        Sample(
            page=f"notifications/get: {page}, without the placeholder token",
            path=f"{NOTIFICATIONS}/get",
            data={**data, "pageSize": 20},
            fields=fields,
        ),
    ]


ORG_USER = {"organizationId": "yourOrganizationId", "userId": "yourUserId"}
AT_LOCATION = {"locationId": "yourLocationId"}
NAMED = {"notificationIds": ["$notificationId"]}

NOTIFICATION_GETS = [
    Sample(
        # The first example's notification, in the feed of yourUserId it names.
        page="notifications/get: by organizationId, documentId and userId (to paste its id)",
        path=f"{NOTIFICATIONS}/get",
        data={**YOURS, **ORG_USER, "pageSize": 20},
        fields=(*FOUND, "data.0.displayHeadlineMessageTemplate", "data.0.notifyUsers"),
        save={"notificationId": "data.0.id"},
    ),
    *notification_get("by organizationId, documentId", YOURS),
    Sample(
        page="notifications/get: by documentId and notificationIds",
        path=f"{NOTIFICATIONS}/get",
        data={**YOURS, **NAMED},
        fields=FOUND,
    ),
    # No notification of these examples has a location: the listings are empty.
    *notification_get("by documentId and locationId", {**YOURS, **AT_LOCATION}, ("data",)),
    Sample(
        page="notifications/get: by documentId, locationId and notificationIds",
        path=f"{NOTIFICATIONS}/get",
        data={**YOURS, **AT_LOCATION, **NAMED},
        fields=("data",),
    ),
    *notification_get("by organizationId and userId", ORG_USER),
    Sample(
        page="notifications/get: by userId and notificationIds",
        path=f"{NOTIFICATIONS}/get",
        data={**ORG_USER, **NAMED},
        fields=FOUND,
    ),
    *notification_get("by documentId and userId", {**YOURS, **ORG_USER}),
    *notification_get("by locationId and userId", {**ORG_USER, **AT_LOCATION}, ("data",)),
    *notification_get(
        "by documentId, locationId and userId", {**YOURS, **ORG_USER, **AT_LOCATION}, ("data",)
    ),
]

UPDATED_NOTIFICATION = ("data.${notificationId}.success", "data.${notificationId}.message")


def notification_update(
    page: str, data: dict[str, Any], fields: tuple[str, ...] = UPDATED_NOTIFICATION
) -> Sample:
    return Sample(
        page=f"notifications/update: {page}",
        path=f"{NOTIFICATIONS}/update",
        data={**data, "notifications": [BODY_UPDATE]},
        fields=fields,
    )


NOTIFICATION_UPDATES = [
    notification_update("by organizationId and documentId", YOURS),
    # A notification outside the filters is not updated: success false for it.
    notification_update("by documentId and locationId", {**YOURS, **AT_LOCATION}),
    notification_update("by documentId and userId", {**YOURS, **ORG_USER}),
    notification_update("by organizationId and userId", ORG_USER),
    notification_update(
        "by documentId, locationId and userId", {**YOURS, **ORG_USER, **AT_LOCATION}
    ),
    notification_update("with permission verification", {**YOURS, "verifyUserPermissions": True}),
]

CONFIG = {"inbox": "ALL", "email": "ALL"}

NOTIFICATION_CONFIGS = [
    Sample(
        page="notifications/config/set: document-level",
        path=f"{NOTIFICATIONS}/config/set",
        data={
            "organizationId": "org1",
            "documentIds": ["doc1"],
            "userIds": ["USER_ID1"],
            "config": CONFIG,
        },
        fields=("data.USER_ID1.success", "data.USER_ID1.userId", "data.USER_ID1.documentId"),
    ),
    Sample(
        page="notifications/config/set: organization-level",
        path=f"{NOTIFICATIONS}/config/set",
        data={"organizationId": "org1", "userIds": ["USER_ID1"], "config": CONFIG},
        fields=("data.USER_ID1.success", "data.USER_ID1.userId"),
    ),
    Sample(
        # The Postman collection's slack value is not one the reference lists (ALL, MINE, NONE).
        page="notifications/config/set: Postman form with slack MENTIONS_ONLY",
        path=f"{NOTIFICATIONS}/config/set",
        data={
            **YOURS | {"documentIds": ["yourDocumentId"]},
            "userIds": ["yourUserId"],
            "config": {**CONFIG, "slack": "MENTIONS_ONLY"},
        },
        expect="INVALID_ARGUMENT",
    ),
    Sample(
        page="notifications/config/get: document-level",
        path=f"{NOTIFICATIONS}/config/get",
        data={"organizationId": "org1", "documentIds": ["doc1"], "userId": "USER_ID1"},
        fields=("data.0.config.inbox", "data.0.config.email", "data.0.metadata.documentId"),
    ),
    Sample(
        page="notifications/config/get: organization-level",
        path=f"{NOTIFICATIONS}/config/get",
        data={"organizationId": "org1", "userId": "USER_ID1", "getOrganizationConfig": True},
        fields=("data.0.config.inbox", "data.0.metadata.userId"),
    ),
]

DELETED_NOTIFICATION = ("data.${notificationId}.success", "data.${notificationId}.message")


def notification_delete(
    page: str, data: dict[str, Any], fields: tuple[str, ...] = ("data",)
) -> Sample:
    return Sample(
        page=f"notifications/delete: {page}",
        path=f"{NOTIFICATIONS}/delete",
        data=data,
        fields=fields,
    )


# The narrowest filters first, so that later examples still find something; those naming a
# location find nothing (no notification here has one).
NOTIFICATION_DELETES = [
    notification_delete(
        "8. by documentId, locationId and notificationIds", {**YOURS, **AT_LOCATION, **NAMED}
    ),
    notification_delete(
        "10. by locationId, userId and notificationIds", {**ORG_USER, **AT_LOCATION, **NAMED}
    ),
    notification_delete("7. by documentId and locationId", {**YOURS, **AT_LOCATION}),
    notification_delete("9. by locationId and userId", {**ORG_USER, **AT_LOCATION}),
    notification_delete(
        "11. by documentId, locationId and userId", {**YOURS, **ORG_USER, **AT_LOCATION}
    ),
    notification_delete(
        "6. by documentId, userId and notificationIds",
        {**YOURS, **ORG_USER, **NAMED},
        DELETED_NOTIFICATION,
    ),
    notification_delete("4. by userId and notificationIds", {**ORG_USER, **NAMED}),
    notification_delete("5. by documentId and userId", {**YOURS, **ORG_USER}),
    notification_delete("3. by organizationId and userId", ORG_USER),
    Sample(
        # The Postman collection sends update's `notifications` list to delete: a field the
        # reference does not list, and Redline refuses unknown fields (INVALID_ARGUMENT).
        page="notifications/delete: Postman form with a notifications list",
        path=f"{NOTIFICATIONS}/delete",
        data={**YOURS, "userId": "yourUserId", "notifications": [BODY_UPDATE]},
        expect="INVALID_ARGUMENT",
    ),
    notification_delete(
        "2. by documentId and notificationIds", {**YOURS, **NAMED}, DELETED_NOTIFICATION
    ),
    notification_delete("1. by organizationId and documentId", YOURS),
]

NOTIFICATION_SAMPLES = [
    *NOTIFICATION_ADDS,
    *NOTIFICATION_GETS,
    *NOTIFICATION_UPDATES,
    *NOTIFICATION_CONFIGS,
    *NOTIFICATION_DELETES,
]

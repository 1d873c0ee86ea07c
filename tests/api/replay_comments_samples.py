"""The reference's example requests for comment annotations and comments, in an order that lets
later examples find what earlier ones made, each group for a workspace of its own."""

from __future__ import annotations

from tests.api.replay_annotation_change_samples import ANNOTATION_DELETES, ANNOTATION_UPDATES
from tests.api.replay_annotation_samples import (
    ADD_BY_LOCATION,
    ANNOTATION_ADDS,
    ANNOTATION_GETS,
    ANNOTATIONS,
    YOUR_DOCUMENT,
    YOURS,
    document,
    organization,
)
from tests.api.replay_support import Sample

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
        # ("string (required)"); the pages' ids stand in for them. The object forms create what
        # is missing with those names; here both exist already.
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
        fields=("data.0",),
    ),
]

COMMENT_SAMPLES_AFTER_ADD = [
    Sample(
        page="comments/get: all comments of an annotation",
        path=f"{COMMENTS}/get",
        data=IN_ANNOTATION,
        fields=(
            "data.0.commentId",
            "data.0.type",
            "data.0.status",
            "data.0.isDraft",
            "data.0.isCommentTextAvailable",
            "data.0.commentText",
            "data.0.commentHtml",
            "data.0.createdAt",
            "data.0.lastUpdated",
            "data.0.from",
            "data.3.attachments.0.url",
        ),
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

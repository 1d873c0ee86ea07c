"""The reference's example requests for changing and deleting comment annotations."""

from __future__ import annotations

from typing import Any

from tests.api.replay_annotation_samples import ANNOTATIONS, TWO_ANNOTATIONS, YOURS
from tests.api.replay_support import Sample

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

"""The official SDK's comment annotation and activity methods, chained against Redline:
organization → document → annotation → comment → get → update → delete."""

from __future__ import annotations

import pytest
from velt_py.models import (
    AddActivitiesRequest,
    AddCommentAnnotationsRequest,
    AddCommentsRequest,
    DeleteActivitiesRequest,
    DeleteCommentAnnotationsRequest,
    DeleteCommentsRequest,
    GetActivitiesRequest,
    GetCommentAnnotationsCountRequest,
    GetCommentAnnotationsRequest,
    GetCommentsRequest,
    UpdateActivitiesRequest,
    UpdateCommentAnnotationsRequest,
    UpdateCommentsRequest,
)

from redline.testing.api import ApiClient, StartApi
from tests.api.sdk_support import Sdk, sdk_for

ANA = {"userId": "ana", "name": "Ana", "email": "ana@example.com"}
SCOPE = {"organizationId": "acme", "documentId": "contract"}


@pytest.fixture
async def sdk(
    target_url: str | None, start_api: StartApi, api: ApiClient, monkeypatch: pytest.MonkeyPatch
) -> Sdk:
    return await sdk_for(target_url, start_api, api, monkeypatch)


async def test_a_thread_from_start_to_end(sdk: Sdk) -> None:
    threads = sdk.api.commentAnnotations
    added = await sdk.ok(
        threads.addCommentAnnotations,
        AddCommentAnnotationsRequest(
            **SCOPE,
            createOrganization=True,
            createDocument=True,
            commentAnnotations=[
                {
                    "annotationId": "clause-4",
                    "location": {"id": "page-1", "locationName": "Page 1"},
                    "actions": [{"id": "approve", "label": "Approve"}],
                    "commentData": [
                        {
                            "commentText": "Please check clause 4.",
                            "from": ANA,
                            "progress": {"state": "active", "steps": [{"label": "read"}]},
                        }
                    ],
                }
            ],
        ),
    )
    assert added["clause-4"]["success"] is True

    reply = await sdk.ok(
        threads.addComments,
        AddCommentsRequest(
            **SCOPE,
            annotationId="clause-4",
            commentData=[{"commentText": "Checked, fine.", "from": ANA}],
        ),
    )
    assert reply
    comments = await sdk.ok(
        threads.getComments, GetCommentsRequest(**SCOPE, annotationId="clause-4")
    )
    texts = [c["commentText"] for c in comments]
    assert texts == ["Please check clause 4.", "Checked, fine."]
    second = comments[1]["commentId"]

    await sdk.ok(
        threads.updateComments,
        UpdateCommentsRequest(
            **SCOPE,
            annotationId="clause-4",
            commentIds=[second],
            updatedData={"commentText": "Checked: fine."},
        ),
    )
    await sdk.ok(
        threads.updateCommentAnnotations,
        UpdateCommentAnnotationsRequest(
            **SCOPE,
            annotationIds=["clause-4"],
            updatedData={"priority": {"id": "P1", "name": "Urgent"}},
        ),
    )
    got = await sdk.ok(
        threads.getCommentAnnotations,
        GetCommentAnnotationsRequest(**SCOPE, annotationIds=["clause-4"]),
    )
    assert [a["annotationId"] for a in got] == ["clause-4"]
    assert got[0]["comments"][1]["commentText"] == "Checked: fine."
    count = await sdk.ok(
        threads.getCommentAnnotationsCount,
        GetCommentAnnotationsCountRequest(
            organizationId="acme", userId="ana", documentIds=["contract"]
        ),
    )
    assert count["contract"]["total"] == 1

    await sdk.ok(
        threads.deleteComments,
        DeleteCommentsRequest(**SCOPE, annotationId="clause-4", commentIds=[second]),
    )
    await sdk.ok(
        threads.deleteCommentAnnotations,
        DeleteCommentAnnotationsRequest(**SCOPE, annotationIds=["clause-4"]),
    )
    assert (
        await sdk.ok(
            threads.getCommentAnnotations,
            GetCommentAnnotationsRequest(**SCOPE, annotationIds=["clause-4"]),
        )
        == [None]  # an id asked for and not found answers null in its place
    )


async def test_activity_records(sdk: Sdk) -> None:
    activities = sdk.api.activities
    await sdk.ok(
        activities.addActivities,
        AddActivitiesRequest(
            **SCOPE,
            activities=[
                {
                    "id": "review-1",
                    "featureType": "custom",
                    "actionType": "review.started",
                    "targetEntityId": "clause-4",
                    "actionUser": ANA,
                    "displayMessageTemplate": "{{actionUser.name}} started a review",
                }
            ],
        ),
    )
    await sdk.ok(
        activities.updateActivities,
        UpdateActivitiesRequest(
            organizationId="acme",
            activities=[{"id": "review-1", "displayMessageTemplate": "Review started"}],
        ),
    )
    listed = await sdk.ok(
        activities.getActivities,
        GetActivitiesRequest(**SCOPE, featureTypes=["custom"], targetEntityId="clause-4"),
    )
    assert [(a["id"], a["displayMessageTemplate"]) for a in listed] == [
        ("review-1", "Review started")
    ]
    await sdk.ok(
        activities.deleteActivities, DeleteActivitiesRequest(**SCOPE, activityIds=["review-1"])
    )
    assert await sdk.ok(activities.getActivities, GetActivitiesRequest(**SCOPE)) == []

"""The reference's example requests for activity logs, after the reference's own example of
turning them on."""

from __future__ import annotations

from typing import Any

from tests.api.replay_support import Sample

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

"""The reference's example requests for advanced webhooks: the key's advanced webhook config,
then endpoints made, read, changed, their secret read and deleted."""

from __future__ import annotations

from tests.api.replay_support import Sample

_ENDPOINT_FIELDS = (
    "data.id",
    "data.url",
    "data.description",
    "data.filterTypes.1",
    "data.channels",
    "data.disabled",
    "data.rateLimit",
    "data.uid",
    "data.createdAt",
    "data.updatedAt",
)

ADVANCED_WEBHOOKS = [
    Sample(
        page="advancedwebhookconfig/get",
        path="/v2/workspace/advancedwebhookconfig/get",
        data={},
        fields=(
            "data.isEnabled",
            "data.encryptData",
            "data.encodeData",
            "data.publicKey",
            "data.enableDataProtection",
        ),
    ),
    Sample(
        page="advancedwebhookconfig/update",
        path="/v2/workspace/advancedwebhookconfig/update",
        data={"isEnabled": True, "encryptData": False, "encodeData": False},
        fields=(
            "data.isEnabled",
            "data.encryptData",
            "data.encodeData",
            "data.publicKey",
            "data.enableDataProtection",
        ),
    ),
    Sample(
        page="advancedwebhook/endpoints/create",
        path="/v2/workspace/advancedwebhook/endpoints/create",
        data={
            "url": "https://example.com/webhooks/velt",
            "description": "Primary endpoint",
            "filterTypes": ["comment.add", "comment.update"],
        },
        fields=_ENDPOINT_FIELDS,
        save={"endpointId": "data.id"},
    ),
    Sample(
        page="advancedwebhook/endpoints/get",
        path="/v2/workspace/advancedwebhook/endpoints/get",
        data={"limit": 50},
        fields=(
            "data.endpoints.0.id",
            "data.endpoints.0.url",
            "data.endpoints.0.channels",
            "data.endpoints.0.uid",
            "data.iterator",
            "data.prevIterator",
            "data.done",
        ),
    ),
    Sample(
        page="advancedwebhook/endpoints/update",
        path="/v2/workspace/advancedwebhook/endpoints/update",
        data={
            "endpointId": "$endpointId",
            "description": "Updated endpoint description",
            "disabled": False,
        },
        fields=_ENDPOINT_FIELDS,
    ),
    Sample(
        page="advancedwebhook/endpoints/secret/get",
        path="/v2/workspace/advancedwebhook/endpoints/secret/get",
        data={"endpointId": "$endpointId"},
        fields=("data.endpointId", "data.secret"),
    ),
    Sample(
        page="advancedwebhook/endpoints/delete",
        path="/v2/workspace/advancedwebhook/endpoints/delete",
        data={"endpointId": "$endpointId"},
        fields=("data.endpointId", "data.deleted"),
    ),
]

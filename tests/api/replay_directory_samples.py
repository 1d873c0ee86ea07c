"""The reference's example requests for organizations, folders, documents, users, user groups
and personal data, in an order that lets later examples find what earlier ones made."""

from __future__ import annotations

from tests.api.replay_support import Sample

ORGANIZATIONS = [
    Sample(
        page="organizations/add: add organization",
        path="/v2/organizations/add",
        data={
            "organizations": [
                {
                    "organizationId": "yourOrganizationId",
                    "organizationName": "Your Organization Name",
                }
            ]
        },
        fields=("data.yourOrganizationId.success", "data.yourOrganizationId.id"),
    ),
    Sample(
        page="organizations/update",
        path="/v2/organizations/update",
        data={
            "organizations": [
                {
                    "organizationId": "yourOrganizationId",
                    "organizationName": "Your Updated Organization Name",
                }
            ]
        },
        fields=("data.yourOrganizationId.success",),
    ),
    Sample(
        # The page's token is a placeholder; a token Redline never issued is refused.
        page="organizations/get",
        path="/v2/organizations/get",
        data={
            "organizationIds": ["yourOrganizationId"],
            "pageSize": 1000,
            "pageToken": "pageToken",
        },
        expect="INVALID_ARGUMENT",
    ),
    Sample(
        page="organizations/get without the placeholder token",
        path="/v2/organizations/get",
        data={"organizationIds": ["yourOrganizationId"], "pageSize": 1000},
        fields=("data.0.id", "data.0.organizationName"),
    ),
    Sample(
        page="organizations/access/disablestate/update",
        path="/v2/organizations/access/disablestate/update",
        data={"organizationIds": ["yourOrganizationId1", "yourOrganizationId2"], "disabled": True},
        fields=("data.yourOrganizationId1.success", "data.yourOrganizationId2.success"),
    ),
    Sample(
        page="organizations/delete: delete specific organization",
        path="/v2/organizations/delete",
        data={"organizationIds": ["yourOrganizationId1", "yourOrganizationId2"]},
    ),
]

SAMPLES = [*ORGANIZATIONS]

"""The URL map of personal data: /v2/users/data/get, /v2/users/data/delete and
/v2/users/data/delete/status (what the hosted product files under GDPR)."""

from __future__ import annotations

from redline.envelope import Endpoint
from redline.identity.app_keys import ERASURE_JOBS, USER_DATA_EXPORT
from redline.identity.personal_data.export import UserDataExport
from redline.identity.personal_data.jobs import ErasureJobs

PERSONAL_DATA_TAG = ("personal data",)
ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/users/data/get",
        USER_DATA_EXPORT,
        UserDataExport.export,
        paged=True,
        message="Data fetched successfully.",
        summary="Everything every service holds about a user, up to 100 items per kind a page",
        tags=PERSONAL_DATA_TAG,
    ),
    Endpoint.of(
        "/v2/users/data/delete",
        ERASURE_JOBS,
        ErasureJobs.start,
        message="Data deletion process has been initiated.",
        summary="Start a job erasing users' data in every service",
        tags=PERSONAL_DATA_TAG,
    ),
    Endpoint.of(
        "/v2/users/data/delete/status",
        ERASURE_JOBS,
        ErasureJobs.status,
        message="Data fetched successfully.",
        summary="Progress of a data deletion job: services left, and whether it completed",
        tags=PERSONAL_DATA_TAG,
    ),
]

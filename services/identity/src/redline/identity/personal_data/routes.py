"""The URL map of personal data: /v2/users/data/get, /v2/users/data/delete and
/v2/users/data/delete/status (what the hosted product files under GDPR)."""

from __future__ import annotations

from redline.envelope import Call, Endpoint, Reply
from redline.identity.app_keys import ERASURE_JOBS, USER_DATA_EXPORT
from redline.identity.personal_data import models


async def get_user_data(call: Call, request: models.GetUserData) -> Reply[models.UserData]:
    return await call.app[USER_DATA_EXPORT].export(call.api_key, request)


async def delete_user_data(call: Call, request: models.DeleteUserData) -> models.ErasureStarted:
    return await call.app[ERASURE_JOBS].start(call.api_key, request)


async def delete_status(call: Call, request: models.ErasureStatusRequest) -> models.ErasureState:
    return await call.app[ERASURE_JOBS].status(call.api_key, request)


PERSONAL_DATA_TAG = ("personal data",)
ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/users/data/get",
        get_user_data,
        models.GetUserData,
        models.UserData,
        paged=True,
        message="Data fetched successfully.",
        summary="Everything every service holds about a user, up to 100 items per kind a page",
        tags=PERSONAL_DATA_TAG,
    ),
    Endpoint(
        "/v2/users/data/delete",
        delete_user_data,
        models.DeleteUserData,
        models.ErasureStarted,
        message="Data deletion process has been initiated.",
        summary="Start a job erasing users' data in every service",
        tags=PERSONAL_DATA_TAG,
    ),
    Endpoint(
        "/v2/users/data/delete/status",
        delete_status,
        models.ErasureStatusRequest,
        models.ErasureState,
        message="Data fetched successfully.",
        summary="Progress of a data deletion job: services left, and whether it completed",
        tags=PERSONAL_DATA_TAG,
    ),
]

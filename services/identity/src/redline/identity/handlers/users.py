"""HTTP handlers of /v2/users/*: the caller and the decoded request in, the service's answer out."""

from __future__ import annotations

from redline.envelope import Call, Reply, paged
from redline.identity.app_keys import USERS
from redline.identity.models import users as models


async def add_users(call: Call, request: models.AddUsers) -> dict[str, models.UserResult]:
    return await call.app[USERS].add(call.api_key, request)


async def update_users(call: Call, request: models.UpdateUsers) -> dict[str, models.UserResult]:
    return await call.app[USERS].update(call.api_key, request)


async def delete_users(call: Call, request: models.DeleteUsers) -> dict[str, models.UserResult]:
    return await call.app[USERS].delete(call.api_key, request)


async def get_users(call: Call, request: models.GetUsers) -> Reply[list[models.UserOut]]:
    users, next_token = await call.app[USERS].get(call.api_key, request)
    # The token also goes out as `pageToken`, where clients of the hosted API look for it.
    return paged(users, next_token, also_as_page_token=True)

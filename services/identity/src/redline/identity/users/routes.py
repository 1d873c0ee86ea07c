"""The URL map of users: /v2/users/add|update|delete|get, count/get and doc/get."""

from __future__ import annotations

from redline.envelope import AuthLevel, Call, Endpoint, Reply
from redline.identity.app_keys import USERS
from redline.identity.users import models


async def add_users(call: Call, request: models.AddUsers) -> dict[str, models.UserResult]:
    return await call.app[USERS].add(call.api_key, request)


async def update_users(call: Call, request: models.UpdateUsers) -> dict[str, models.UserResult]:
    return await call.app[USERS].update(call.api_key, request)


async def delete_users(call: Call, request: models.DeleteUsers) -> dict[str, models.UserResult]:
    return await call.app[USERS].delete(call.api_key, request)


async def get_users(
    call: Call, request: models.GetUsers
) -> Reply[models.UserList | models.GroupedUsers]:
    return await call.app[USERS].get(call.api_key, request)


async def count_users(call: Call, request: models.CountUsers) -> models.UserCount:
    return await call.app[USERS].count(call.api_key, request)


async def get_document_users(
    call: Call, request: models.GetDocUsers
) -> Reply[list[models.DocUser]]:
    return await call.app[USERS].document_users(call.api_key, request)


USERS_TAG = ("users",)
ENDPOINTS: list[Endpoint] = [
    Endpoint(
        "/v2/users/add",
        add_users,
        models.AddUsers,
        dict[str, models.UserResult],
        auth=AuthLevel.API_KEY,
        message="User(s) processed successfully.",
        summary="Add users to an organization, a folder or a document, with their role",
        tags=USERS_TAG,
    ),
    Endpoint(
        "/v2/users/update",
        update_users,
        models.UpdateUsers,
        dict[str, models.UserResult],
        auth=AuthLevel.API_KEY,
        message="User(s) processed successfully.",
        summary="Update members' profiles and roles at one level, or on all their grants",
        tags=USERS_TAG,
    ),
    Endpoint(
        "/v2/users/delete",
        delete_users,
        models.DeleteUsers,
        dict[str, models.UserResult],
        auth=AuthLevel.API_KEY,
        message="User(s) deleted successfully.",
        summary="Remove users from an organization (all of it), a folder or a document",
        tags=USERS_TAG,
    ),
    Endpoint(
        "/v2/users/get",
        get_users,
        models.GetUsers,
        models.UserList | models.GroupedUsers,
        auth=AuthLevel.API_KEY,
        paged=True,
        message="User(s) retrieved successfully.",
        summary="List the members of an organization, a folder or a document, a page at a time",
        tags=USERS_TAG,
    ),
    Endpoint(
        "/v2/users/count/get",
        count_users,
        models.CountUsers,
        models.UserCount,
        auth=AuthLevel.API_KEY,
        message="Users count retrieved successfully.",
        summary="Count the members of an organization or a document, or its document-level users",
        tags=USERS_TAG,
    ),
    Endpoint(
        "/v2/users/doc/get",
        get_document_users,
        models.GetDocUsers,
        list[models.DocUser],
        auth=AuthLevel.API_KEY,
        paged=True,
        message="Document users retrieved successfully.",
        summary="List the users with access at document level in an organization",
        tags=USERS_TAG,
    ),
]

"""The URL map of users: /v2/users/add|update|delete|get, count/get and doc/get."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.app_keys import USERS
from redline.identity.users.service import UsersService

USERS_TAG = ("users",)
ENDPOINTS: list[Endpoint] = [
    Endpoint.of(
        "/v2/users/add",
        USERS,
        UsersService.add,
        auth=AuthLevel.API_KEY,
        message="User(s) processed successfully.",
        summary="Add users to an organization, a folder or a document, with their role",
        tags=USERS_TAG,
    ),
    Endpoint.of(
        "/v2/users/update",
        USERS,
        UsersService.update,
        auth=AuthLevel.API_KEY,
        message="User(s) processed successfully.",
        summary="Update members' profiles and roles at one level, or on all their grants",
        tags=USERS_TAG,
    ),
    Endpoint.of(
        "/v2/users/delete",
        USERS,
        UsersService.delete,
        auth=AuthLevel.API_KEY,
        message="User(s) deleted successfully.",
        summary="Remove users from an organization (all of it), a folder or a document",
        tags=USERS_TAG,
    ),
    Endpoint.of(
        "/v2/users/get",
        USERS,
        UsersService.get,
        auth=AuthLevel.API_KEY,
        paged=True,
        message="User(s) retrieved successfully.",
        summary="List the members of an organization, a folder or a document, a page at a time",
        tags=USERS_TAG,
    ),
    Endpoint.of(
        "/v2/users/count/get",
        USERS,
        UsersService.count,
        auth=AuthLevel.API_KEY,
        message="Users count retrieved successfully.",
        summary="Count the members of an organization or a document, or its document-level users",
        tags=USERS_TAG,
    ),
    Endpoint.of(
        "/v2/users/doc/get",
        USERS,
        UsersService.document_users,
        auth=AuthLevel.API_KEY,
        paged=True,
        message="Document users retrieved successfully.",
        summary="List the users with access at document level in an organization",
        tags=USERS_TAG,
    ),
]

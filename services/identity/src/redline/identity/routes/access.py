"""Identity routes: users, permissions and user tokens."""

from __future__ import annotations

from redline.envelope import AuthLevel, Endpoint
from redline.identity.handlers import permissions as permissions_handlers
from redline.identity.handlers import users as users_handlers
from redline.identity.models import permissions as permissions_models
from redline.identity.models import users as users_models

USERS_TAG = ("users",)
AUTH_TAG = ("auth",)
USERS_AND_ACCESS: list[Endpoint] = [
    Endpoint(
        "/v2/users/add",
        users_handlers.add_users,
        users_models.AddUsers,
        dict[str, users_models.UserResult],
        auth=AuthLevel.API_KEY,
        message="Users added successfully.",
        summary="Add users to an organization, a folder or a document, with their role",
        tags=USERS_TAG,
    ),
    Endpoint(
        "/v2/users/update",
        users_handlers.update_users,
        users_models.UpdateUsers,
        dict[str, users_models.UserResult],
        auth=AuthLevel.API_KEY,
        message="Users updated successfully.",
        summary="Update members' profiles and roles at one level",
        tags=USERS_TAG,
    ),
    Endpoint(
        "/v2/users/delete",
        users_handlers.delete_users,
        users_models.DeleteUsers,
        dict[str, users_models.UserResult],
        auth=AuthLevel.API_KEY,
        message="Users deleted successfully.",
        summary="Remove users from an organization (all of it), a folder or a document",
        tags=USERS_TAG,
    ),
    Endpoint(
        "/v2/users/get",
        users_handlers.get_users,
        users_models.GetUsers,
        list[users_models.UserOut],
        auth=AuthLevel.API_KEY,
        paged=True,
        message="User(s) retrieved successfully.",
        summary="List the members of an organization, a folder or a document, a page at a time",
        tags=USERS_TAG,
    ),
    Endpoint(
        "/v2/auth/permissions/add",
        permissions_handlers.add_permissions,
        permissions_models.AddPermissions,
        None,
        auth=AuthLevel.API_KEY,
        message="Permissions added successfully.",
        summary="Grant a user roles on organizations, folders and documents, maybe for a time",
        tags=AUTH_TAG,
    ),
    Endpoint(
        "/v2/auth/permissions/remove",
        permissions_handlers.remove_permissions,
        permissions_models.RemovePermissions,
        None,
        auth=AuthLevel.API_KEY,
        message="Permissions removed successfully.",
        summary="Remove a user's grants on organizations, folders and documents",
        tags=AUTH_TAG,
    ),
    Endpoint(
        "/v2/auth/permissions/get",
        permissions_handlers.get_permissions,
        permissions_models.GetPermissions,
        dict[str, permissions_models.UserPermissions],
        auth=AuthLevel.API_KEY,
        # A user token may ask about its own user.
        user_tokens=True,
        message="Permissions retrieved successfully.",
        summary="Users' effective access to an organization and some of its folders and documents",
        tags=AUTH_TAG,
    ),
    Endpoint(
        "/v2/auth/generate_token",
        permissions_handlers.generate_token,
        permissions_models.GenerateToken,
        permissions_models.GeneratedToken,
        auth=AuthLevel.API_KEY,
        message="Token generated successfully.",
        summary="Issue a user token (JWT) that acts as one user, with the resources it carries",
        tags=AUTH_TAG,
    ),
]

"""Personal data: request and response Structs of /v2/users/data/get, /delete and
/delete/status, in the shapes of the hosted product's reference and of what its official Python
SDK (velt-py) sends."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from redline.identity.fields import Id, PageToken, Request

# The hosted product takes at most 30 users per call (its SDK says it drops the rest); Redline
# refuses more instead of leaving some users' data behind unnoticed.
UserIds = Annotated[list[Id], Meta(min_length=1, max_length=30)]
OrganizationIds = Annotated[list[Id], Meta(min_length=1, max_length=100)]
ErasureStatus = Literal["pending", "in_progress", "completed"]

# Kinds the reference lists: present in every answer, empty when nothing holds them.
REFERENCE_KINDS = ("comments", "reactions", "recordings", "notifications")

# Each kind of data -> up to 100 items of it.
UserData = dict[str, list[dict[str, Any]]]


class GetUserData(Request):
    # Required by the reference; the SDK may send `veltUserIds` and `veltAllOrganizations`
    # instead (the service checks that one of each pair is there).
    organizationId: Id | None = None
    userId: Id | None = None
    pageToken: PageToken | None = None
    veltUserIds: UserIds | None = None
    veltAllOrganizations: bool | None = None
    # Accepted and ignored, as the hosted product does.
    uniqueId: Annotated[str, Meta(max_length=256)] | None = None


class DeleteUserData(Request):
    userIds: UserIds
    organizationIds: OrganizationIds | None = None


class ErasureStarted(msgspec.Struct):
    jobId: str
    # One task per participating service.
    tasksCount: int


class ErasureStatusRequest(Request):
    jobId: Id


class ErasureState(msgspec.Struct):
    isDeleteCompleted: bool
    tasksLeft: int
    # ms since the epoch; None until a service reported.
    lastTaskCompletedTime: int | None
    jobId: str
    status: ErasureStatus

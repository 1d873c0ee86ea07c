"""Personal data export, coordinated by identity.

`export` asks every participating service (`rpc.<service>.personal_data.export`, identity's own
answer included) for one page of each kind of data it holds about the user and merges the
answers under the kinds' names; the page token carries where each unfinished kind resumes. A
service that does not answer fails the export (UNAVAILABLE or DEADLINE_EXCEEDED): an export that
silently missed a service would not be one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import msgspec
from msgspec.structs import replace

from redline.bus import Bus, rpc
from redline.envelope import PageTokens, Reply, paged
from redline.envelope.auth import ApiKeyPrincipal
from redline.envelope.errors import InvalidArgument
from redline.identity.personal_data import models
from redline.proto.rpc import PersonalDataExport, PersonalDataExported
from redline.proto.subjects import personal_data_export_subject

_PAGE_KIND = "users.data"
PAGE_SIZE = 100


class _ExportCursor(msgspec.Struct, array_like=True):
    """Where an export resumes: the user (by position in the request's list) and, per service,
    where each of its unfinished kinds resumes. `api_key` and `users` bind the token to the
    request it continues."""

    api_key: str
    users: list[str]
    user_index: int
    offsets: dict[str, dict[str, int]]


def _export_users(request: models.GetUserData) -> list[str]:
    if request.veltUserIds:
        return list(dict.fromkeys(request.veltUserIds))
    if request.userId is None:
        raise InvalidArgument.field("data.userId", "userId is required.")
    return [request.userId]


def _export_scope(request: models.GetUserData) -> list[str] | None:
    if request.veltAllOrganizations:
        return None
    if request.organizationId is None:
        raise InvalidArgument.field("data.organizationId", "organizationId is required.")
    return [request.organizationId]


class UserDataExport:
    def __init__(
        self, bus: Bus, pages: PageTokens, participants: Sequence[str], rpc_timeout_s: float
    ) -> None:
        self._bus = bus
        self._pages = pages
        self._participants = list(participants)
        self._rpc_timeout_s = rpc_timeout_s

    # export -----------------------------------------------------------------------------------

    async def export(
        self, caller: ApiKeyPrincipal, request: models.GetUserData
    ) -> Reply[models.UserData]:
        users, scope = _export_users(request), _export_scope(request)
        cursor = _ExportCursor(caller.api_key, users, 0, {})
        first_page = True
        if request.pageToken:
            cursor = self._pages.decode(
                caller.workspace_id, _PAGE_KIND, request.pageToken, _ExportCursor
            )
            if cursor.api_key != caller.api_key or cursor.users != users:
                raise InvalidArgument.field("data.pageToken", "Invalid page token.")
            first_page = False
        services = self._participants if first_page else list(cursor.offsets)
        answers = await asyncio.gather(
            *(
                self._ask(caller, users[cursor.user_index], scope, service, cursor, first_page)
                for service in services
            )
        )
        data: models.UserData = {kind: [] for kind in models.REFERENCE_KINDS}
        offsets: dict[str, dict[str, int]] = {}
        for service, answer in zip(services, answers, strict=True):
            for kind, page in answer.kinds.items():
                data.setdefault(kind, []).extend(page.items)
                if page.nextOffset is not None:
                    offsets.setdefault(service, {})[kind] = page.nextOffset
        return paged(data, self._next_token(caller, cursor, offsets))

    async def _ask(
        self,
        caller: ApiKeyPrincipal,
        user_id: str,
        scope: list[str] | None,
        service: str,
        cursor: _ExportCursor,
        first_page: bool,
    ) -> PersonalDataExported:
        request = PersonalDataExport(
            workspaceId=caller.workspace_id,
            apiKey=caller.api_key,
            userId=user_id,
            organizationIds=scope,
            offsets=None if first_page else cursor.offsets[service],
            limit=PAGE_SIZE,
        )
        return await rpc.call(
            self._bus.nc,
            personal_data_export_subject(service),
            request,
            PersonalDataExported,
            timeout_s=self._rpc_timeout_s,
        )

    def _next_token(
        self,
        caller: ApiKeyPrincipal,
        cursor: _ExportCursor,
        offsets: dict[str, dict[str, int]],
    ) -> str | None:
        if offsets:
            following = replace(cursor, offsets=offsets)
        elif cursor.user_index + 1 < len(cursor.users):
            following = replace(cursor, user_index=cursor.user_index + 1, offsets={})
        else:
            return None
        return self._pages.encode(caller.workspace_id, _PAGE_KIND, following)

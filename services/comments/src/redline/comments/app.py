"""The comments service as a plugin of the shared runtime, and as an app of its own."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web

from redline.comments import routes
from redline.comments.app_keys import ADD_SERVICE, READ, SETTINGS
from redline.comments.service.add import AddService
from redline.comments.service.read import ReadService
from redline.comments.settings import CommentsSettings
from redline.comments.storage.annotations import SCHEMA, CommentDocuments
from redline.comments.subscribers import follow_directory_deletions
from redline.envelope import PAGE_TOKENS, add_endpoints
from redline.runtime.access import ACCESS_CLIENT
from redline.runtime.app import ServicePlugin, build_app
from redline.runtime.document_migration import take_part_in_document_migration
from redline.runtime.resources import BUS, POOL

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"


@contextlib.asynccontextmanager
async def _read_service(app: web.Application) -> AsyncIterator[None]:
    # Built once the shared pool, bus and access client exist.
    app[READ] = ReadService(
        app[POOL],
        app[ACCESS_CLIENT],
        app[BUS],
        app[PAGE_TOKENS],
        app[SETTINGS].default_page_size,
    )
    yield


@contextlib.asynccontextmanager
async def _add_service(app: web.Application) -> AsyncIterator[None]:
    app[ADD_SERVICE] = AddService(app[POOL], app[BUS], app[ACCESS_CLIENT])
    yield


def plugin(settings: CommentsSettings) -> ServicePlugin:
    def setup(app: web.Application) -> None:
        app[SETTINGS] = settings
        add_endpoints(app, routes.ENDPOINTS)
        app.cleanup_ctx.append(_read_service)
        app.cleanup_ctx.append(_add_service)
        app.cleanup_ctx.append(
            take_part_in_document_migration(SCHEMA, lambda app: CommentDocuments())
        )
        app.cleanup_ctx.append(follow_directory_deletions)

    return ServicePlugin(name=SCHEMA, setup=setup, migrations=MIGRATIONS)


def create_app(settings: CommentsSettings) -> web.Application:
    return build_app(settings, [plugin(settings)])

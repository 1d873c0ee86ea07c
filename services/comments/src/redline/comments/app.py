"""The comments service as a plugin of the shared runtime, and as an app of its own."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from redline.comments import routes
from redline.comments.app_keys import SETTINGS
from redline.comments.settings import CommentsSettings
from redline.comments.storage.annotations import SCHEMA, CommentDocuments
from redline.envelope import add_endpoints
from redline.runtime.app import ServicePlugin, build_app
from redline.runtime.document_migration import take_part_in_document_migration

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"


def plugin(settings: CommentsSettings) -> ServicePlugin:
    def setup(app: web.Application) -> None:
        app[SETTINGS] = settings
        add_endpoints(app, routes.ENDPOINTS)
        app.cleanup_ctx.append(
            take_part_in_document_migration(SCHEMA, lambda app: CommentDocuments())
        )

    return ServicePlugin(name=SCHEMA, setup=setup, migrations=MIGRATIONS)


def create_app(settings: CommentsSettings) -> web.Application:
    return build_app(settings, [plugin(settings)])

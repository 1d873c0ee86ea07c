"""The comments service as a plugin of the shared runtime, and as an app of its own."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from aiohttp import web

from redline.comments.annotations import routes as annotation_routes
from redline.comments.annotations.reading import ReadService
from redline.comments.annotations.service import AnnotationService
from redline.comments.app_keys import ANNOTATIONS, COMMENTS, REACTIONS, READ, SETTINGS, SUGGESTIONS
from redline.comments.personal_data.storage import COMMENT_KINDS
from redline.comments.reactions import routes as reaction_routes
from redline.comments.reactions.service import ReactionService
from redline.comments.settings import CommentsSettings
from redline.comments.shared.storage import SCHEMA, CommentDocuments
from redline.comments.subscribers import follow_directory_deletions
from redline.comments.suggestions import routes as suggestion_routes
from redline.comments.suggestions.service import SuggestionService
from redline.comments.thread import routes as thread_routes
from redline.comments.thread.service import CommentService
from redline.envelope import PAGE_TOKENS, add_endpoints
from redline.runtime.access import ACCESS_CLIENT
from redline.runtime.app import ServicePlugin, build_app
from redline.runtime.document_migration import take_part_in_document_migration
from redline.runtime.known_documents import KNOWN_DOCUMENTS
from redline.runtime.personal_data import take_part_in_personal_data
from redline.runtime.resources import BUS, POOL

MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"


@contextlib.asynccontextmanager
async def _services(app: web.Application) -> AsyncIterator[None]:
    # Built once the shared pool, bus and access client exist.
    pool, bus, access = app[POOL], app[BUS], app[ACCESS_CLIENT]
    documents = app[KNOWN_DOCUMENTS]
    app[ANNOTATIONS] = AnnotationService(pool, bus, access, documents)
    settings = app[SETTINGS]
    app[READ] = ReadService(
        pool,
        access,
        bus,
        app[PAGE_TOKENS],
        settings.default_page_size,
        settings.page_byte_budget,
    )
    app[COMMENTS] = CommentService(pool, bus, access, documents)
    app[REACTIONS] = ReactionService(pool, access)
    app[SUGGESTIONS] = SuggestionService(pool, access)
    yield


def plugin(settings: CommentsSettings) -> ServicePlugin:
    def setup(app: web.Application) -> None:
        app[SETTINGS] = settings
        add_endpoints(app, annotation_routes.ENDPOINTS)
        add_endpoints(app, thread_routes.ENDPOINTS)
        add_endpoints(app, reaction_routes.ENDPOINTS)
        add_endpoints(app, suggestion_routes.ENDPOINTS)
        app.cleanup_ctx.append(_services)
        app.cleanup_ctx.append(
            take_part_in_document_migration(SCHEMA, lambda app: CommentDocuments())
        )
        app.cleanup_ctx.append(follow_directory_deletions)
        app.cleanup_ctx.append(take_part_in_personal_data(SCHEMA, lambda app: COMMENT_KINDS))

    return ServicePlugin(name=SCHEMA, setup=setup, migrations=MIGRATIONS)


def create_app(settings: CommentsSettings) -> web.Application:
    return build_app(settings, [plugin(settings)])

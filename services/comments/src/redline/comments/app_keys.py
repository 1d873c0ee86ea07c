"""Typed app state of the comments service."""

from __future__ import annotations

from aiohttp import web

from redline.comments.annotations.reading import ReadService
from redline.comments.annotations.service import AnnotationService
from redline.comments.reactions.service import ReactionService
from redline.comments.settings import CommentsSettings
from redline.comments.suggestions.service import SuggestionService
from redline.comments.thread.service import CommentService

SETTINGS = web.AppKey("comments_settings", CommentsSettings)
ANNOTATIONS = web.AppKey("comments_annotations", AnnotationService)
READ = web.AppKey("comments_read", ReadService)
COMMENTS = web.AppKey("comments_comments", CommentService)
REACTIONS = web.AppKey("comments_reactions", ReactionService)
SUGGESTIONS = web.AppKey("comments_suggestions", SuggestionService)

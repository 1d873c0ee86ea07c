"""Typed app state of the comments service."""

from __future__ import annotations

from aiohttp import web

from redline.comments.service.add import AddService
from redline.comments.service.read import ReadService
from redline.comments.settings import CommentsSettings

SETTINGS = web.AppKey("comments_settings", CommentsSettings)
READ = web.AppKey("comments_read", ReadService)
ADD_SERVICE = web.AppKey("comments_add", AddService)

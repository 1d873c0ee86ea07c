"""Typed app state of the comments service."""

from __future__ import annotations

from aiohttp import web

from redline.comments.settings import CommentsSettings

SETTINGS = web.AppKey("comments_settings", CommentsSettings)

"""The whole of Redline in one app: every service's plugin on one port.

This is the same `build_app` that each service's own `create_app` calls, given every plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aiohttp import web

from redline.comments.app import plugin as comments_plugin
from redline.comments.settings import CommentsSettings
from redline.identity.app import plugin as identity_plugin
from redline.identity.settings import IdentitySettings
from redline.memory.app import plugin as memory_plugin
from redline.memory.settings import MemorySettings
from redline.notify.app import plugin as notify_plugin
from redline.notify.settings import NotifySettings
from redline.runtime.app import ServicePlugin, build_app
from redline.runtime.settings import RuntimeSettings, load_settings
from redline.workflow.app import plugin as workflow_plugin
from redline.workflow.settings import WorkflowSettings


def plugins(environ: Mapping[str, str] | None, overrides: dict[str, Any]) -> list[ServicePlugin]:
    return [
        identity_plugin(load_settings(IdentitySettings, environ, **overrides)),
        comments_plugin(load_settings(CommentsSettings, environ, **overrides)),
        notify_plugin(load_settings(NotifySettings, environ, **overrides)),
        memory_plugin(load_settings(MemorySettings, environ, **overrides)),
        workflow_plugin(load_settings(WorkflowSettings, environ, **overrides)),
    ]


def create_system_app(
    environ: Mapping[str, str] | None = None, **overrides: Any
) -> tuple[web.Application, RuntimeSettings]:
    settings = load_settings(RuntimeSettings, environ, **overrides)
    return build_app(settings, plugins(environ, overrides)), settings

"""The routing table says which service answers a path; each service serves only paths the table
gives it, so the gateway (local or Kubernetes) sends every request where it can be answered."""

from __future__ import annotations

import pytest
from aiohttp import web

from redline.cli.system import plugins
from redline.runtime.app import ServicePlugin
from redline.runtime.routing import SERVICE_PREFIXES, SERVICES, service_for


@pytest.mark.parametrize("plugin", plugins({}, {}), ids=lambda plugin: plugin.name)
def test_every_path_of_a_service_routes_to_that_service(plugin: ServicePlugin) -> None:
    app = web.Application()
    plugin.setup(app)
    paths = {resource.canonical for resource in app.router.resources()}
    assert paths
    assert {path: service_for(path) for path in paths} == dict.fromkeys(paths, plugin.name)


def test_the_table_names_each_service_of_the_system_once() -> None:
    assert sorted(plugin.name for plugin in plugins({}, {})) == sorted(SERVICES)


@pytest.mark.parametrize(
    ("path", "service"),
    [
        ("/v2/workspace/get", "identity"),
        ("/v2/organizations/documents/migrate/status", "identity"),
        ("/v1/commentannotations/comments/get", "comments"),
        ("/v2/webhooks/deliveries/list", "notify"),
        ("/v2/notifications/config/get", "notify"),
        ("/v2/workspace/notificationconfig/get", "identity"),
        ("/v2/memory/knowledge/uploads/abc", "memory"),
        ("/v2/workflow/callbacks/ex/st", "workflow"),
        ("/v2/workflows/list", None),  # a prefix matches whole path segments only
        ("/v2/memoryless", None),
        ("/openapi.json", None),
    ],
)
def test_a_prefix_covers_itself_and_the_paths_below_it(path: str, service: str | None) -> None:
    assert service_for(path) == service


def test_no_prefix_lies_within_another_services_prefix() -> None:
    owned = [(prefix, name) for name, prefixes in SERVICE_PREFIXES.items() for prefix in prefixes]
    for prefix, name in owned:
        assert service_for(prefix) == name

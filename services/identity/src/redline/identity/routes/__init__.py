"""The identity service's whole URL map, one module per area."""

from __future__ import annotations

from redline.identity.routes.access import USERS_AND_ACCESS
from redline.identity.routes.config import CONFIG
from redline.identity.routes.directory import DIRECTORY
from redline.identity.routes.migration import MIGRATION
from redline.identity.routes.workspace import WORKSPACE

ENDPOINTS = [*WORKSPACE, *CONFIG, *DIRECTORY, *USERS_AND_ACCESS, *MIGRATION]

"""The comments service's whole URL map (document 2 and decisions §2)."""

from __future__ import annotations

from redline.envelope import Endpoint

# /v2/commentannotations/add and /v2/commentannotations/comments/add.
ADD: list[Endpoint] = []

# /v2/commentannotations/get, /v1/commentannotations/comments/get, /v2/commentannotations/count/get.
READ: list[Endpoint] = []

# update, delete, comments update/delete, reactions, suggestions/resolve.
CHANGE: list[Endpoint] = []

ENDPOINTS = [*ADD, *READ, *CHANGE]

"""The PostgreSQL schema of the identity service: its tables, its record of migrations and its
outbox of events all live under this name."""

from __future__ import annotations

SCHEMA = "identity"

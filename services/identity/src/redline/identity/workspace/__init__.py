"""Workspaces, their API keys and the keys' auth tokens (workspace-level endpoints)."""

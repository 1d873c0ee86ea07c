"""Callbacks of async webhook and agent steps."""

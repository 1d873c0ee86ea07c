"""Suggestions: annotations to accept or reject, once."""

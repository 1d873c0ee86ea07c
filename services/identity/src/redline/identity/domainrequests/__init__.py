"""Requests to allow a domain for an API key, and the owner's decision on them."""

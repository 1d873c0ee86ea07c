"""Aggregate memory counts of a key: /v2/memory/stats/get."""

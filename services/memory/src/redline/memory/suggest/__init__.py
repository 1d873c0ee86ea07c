"""A suggested decision grounded in past judgments: /v2/memory/suggest."""

"""A reviewer's profile drawn from their judgments: /v2/memory/profiles/get."""

"""Reactions to a comment, each icon a small annotation of its own inside the comment."""

"""Annotations of a document: adding them with their comments, reading and counting them, and
updating and deleting them in bulk."""

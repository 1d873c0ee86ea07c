"""Document migration: moving everything keyed by a document id to a new id, in every service."""

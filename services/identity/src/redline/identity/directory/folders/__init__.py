"""Folders of an organization: a tree, each with its own access type or its parent's."""

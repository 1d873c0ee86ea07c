"""Disabling and enabling organizations and documents, and the rule identity's own writes follow."""

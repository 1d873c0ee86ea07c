"""Invitations of people by email address to an organization, a folder or a document."""

"""Documents of an organization, in a folder or at its root."""

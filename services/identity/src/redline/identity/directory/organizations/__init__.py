"""Organizations of an API key."""

"""Users of an API key, and their membership in organizations, folders and documents."""

"""The directory of an API key: organizations, the folders in them and their documents, with the
rules, existence checks and shared SQL the three have in common."""

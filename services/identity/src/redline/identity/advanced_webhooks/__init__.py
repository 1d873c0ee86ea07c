"""Advanced webhook endpoints: where an API key's events go, signed with Standard Webhooks."""

"""The permission provider: a customer's endpoint that decides users' access."""

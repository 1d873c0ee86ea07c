"""Slack credentials per API key: the bot token a key's notification nodes post with."""

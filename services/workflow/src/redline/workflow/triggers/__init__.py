"""Triggers: definitions that start executions by themselves (inbound webhooks, schedules)."""

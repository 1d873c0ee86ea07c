"""The workflow service: approval definitions, durable executions and their event streams."""

"""Executions: dispatch, reads, event streams and cancellation."""

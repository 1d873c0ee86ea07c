"""Memory alerts: trends in a key's judgments raised by a periodic check, listed, dismissed and
actioned through /v2/memory/alerts/*, with the key's stored alert settings."""

"""Per-API-key configuration: allowed domains, basic and advanced webhooks, activity logs."""

"""The notify service: webhook delivery and activity logs."""

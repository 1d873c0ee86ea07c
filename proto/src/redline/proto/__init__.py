"""Event types, RPC bodies and NATS subject names shared by the Redline services."""

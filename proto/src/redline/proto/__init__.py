"""Event types, RPC bodies, NATS subject names and the request context shared by the Redline
services."""

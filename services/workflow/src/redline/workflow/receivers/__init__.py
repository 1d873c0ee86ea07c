"""Execution webhook receivers, as the notify service asks for them."""

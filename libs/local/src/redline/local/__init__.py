"""Servers Redline starts for itself when no external ones are configured.

A deployed service never imports this package: its image holds only what it runs, and its
database and NATS are given by URL.
"""

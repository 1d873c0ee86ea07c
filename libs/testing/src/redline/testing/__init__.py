"""Test infrastructure for Redline: real servers on loopback ports, isolated per test."""

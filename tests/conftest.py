"""Shared fixtures; model factories live in tests/factories.py."""

"""Bugs and tasks."""

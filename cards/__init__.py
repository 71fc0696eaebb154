"""Adaptive Cards as pure functions from pydantic models to dicts: no I/O, nothing from bot.db."""

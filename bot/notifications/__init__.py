"""Notifications: what the bot tells people in Teams, and when."""

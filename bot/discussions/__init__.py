"""Discussions and notifications: an item's thread in Teams, and what the bot tells people,
and when."""

"""The bot: /api/messages, the activity handler, roster sync and proactive notifications."""

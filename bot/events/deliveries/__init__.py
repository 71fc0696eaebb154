"""Webhook deliveries: how they are signed, when they are tried again, and their log."""

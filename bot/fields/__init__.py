"""Statuses, priorities and severities of a channel."""

"""Bugs and tasks per Microsoft Teams channel: one domain core behind a REST/OData API and a bot."""

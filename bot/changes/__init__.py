"""Live item changes for open tabs: a channel's changes as server-sent events."""

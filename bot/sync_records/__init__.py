"""What items, mappings and projects hold of their sync, written in their own transactions: the
sync's bodies (a project's `sync`, an item's sync problem), an item's sync record, and the
changes noted for the source (`outbox`). The engine that reads and sends them is `bot/sync/`."""

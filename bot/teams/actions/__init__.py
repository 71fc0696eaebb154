"""What Teams sends besides a typed command: card actions, the messaging extension's invokes,
and replies in an item's thread."""

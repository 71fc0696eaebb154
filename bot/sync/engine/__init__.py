"""The sync engine: one engine for every source, through the `Source` port."""

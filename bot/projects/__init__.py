"""Projects: where a channel's items come from (its own store, or an external tracker)."""

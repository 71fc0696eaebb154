"""Chat commands: the grammar, one module per family of commands, and what their cards read."""

"""Event rules: definitions, the engine that matches them, deliveries, the due-date sweep."""

"""The one durable background-work model: rows in `jobs`, claimed under a lease, retried."""

"""Local stand-ins for the external sources: small servers of our own that answer the subset of
a vendor's published API the connectors use, for tests and for `admin demo`."""

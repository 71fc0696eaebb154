"""Sessions, API tokens, Teams SSO and the request context (who, and in which channel)."""

"""The HTTP frame: declared routes, request context, errors, OpenAPI and docs."""

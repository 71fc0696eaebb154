"""Refusals in Graph's error shape (`{"error": {code, message, innerError}}`) and the token
endpoint's (`{error, error_description}`)."""

from typing import Any

from aiohttp import web


class GraphError(Exception):
    def __init__(self, status: int, message: str, code: str = "") -> None:
        super().__init__(message)
        self.status, self.message, self.code = status, message, code

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "code": self.code,
                "message": self.message,
                "innerError": {"request-id": "00000000-0000-0000-0000-000000000000"},
            }
        }

    def response(self, headers: dict[str, str] | None = None) -> web.Response:
        return web.json_response(self.body(), status=self.status, headers=headers)


class TokenError(Exception):
    """The token endpoint's refusal (Entra's OAuth error shape)."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(description)
        self.status, self.error, self.description = status, error, description

    def response(self) -> web.Response:
        body = {"error": self.error, "error_description": self.description, "error_codes": []}
        return web.json_response(body, status=self.status)


def not_found() -> GraphError:
    return GraphError(404, "The requested item is not found.", "NotFound")

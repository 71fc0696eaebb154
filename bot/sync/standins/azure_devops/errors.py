"""Refusals in Azure DevOps' error shape (`{$id, innerException, message, typeName, typeKey,
errorCode, eventId}`), raised by the state and rendered by the routes."""

from typing import Any

from aiohttp import web


class AdoError(Exception):
    def __init__(self, status: int, message: str, type_key: str = "VssServiceException") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type_key = type_key

    def body(self) -> dict[str, Any]:
        return {
            "$id": "1",
            "innerException": None,
            "message": self.message,
            "typeName": f"Microsoft.VisualStudio.Services.WebApi.{self.type_key}, "
            "Microsoft.VisualStudio.Services.WebApi",
            "typeKey": self.type_key,
            "errorCode": 0,
            "eventId": 3000,
        }

    def response(self, headers: dict[str, str] | None = None) -> web.Response:
        return web.json_response(self.body(), status=self.status, headers=headers)


def not_found(item_id: int) -> AdoError:
    return AdoError(
        404,
        f"TF401232: Work item {item_id} does not exist, or you do not have permissions to read it.",
        "WorkItemUnauthorizedAccessException",
    )


def bad_request(message: str, type_key: str = "VssServiceException") -> AdoError:
    return AdoError(400, message, type_key)

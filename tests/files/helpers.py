"""Uploading through the real HTTP API, and looking at what the file store holds on disk."""

from pathlib import Path
from typing import Any

import aiohttp
from aiohttp.test_utils import TestClient

from bot.settings import Settings
from tests.factories import Member


def form(content: bytes, filename: str = "report.txt", content_type: str = "text/plain"):  # noqa: ANN201
    data = aiohttp.FormData(quote_fields=False)  # as browsers and curl send names: raw UTF-8
    data.add_field("groupId", "a0a0a0a0-0000-0000-0000-000000000001")
    data.add_field("file", content, filename=filename, content_type=content_type)
    return data


async def upload(
    client: TestClient,
    member: Member,
    item_id: str,
    content: bytes = b"hello, world\n",
    filename: str = "report.txt",
    content_type: str = "text/plain",
) -> tuple[int, Any]:
    response = await client.post(
        f"/api/files/{item_id}",
        data=form(content, filename, content_type),
        headers=member.in_channel(),
    )
    return response.status, await response.json()


async def uploaded(client: TestClient, member: Member, item_id: str, **kwargs: Any) -> dict:
    status, body = await upload(client, member, item_id, **kwargs)
    assert status == 201, body
    return body


def files_on_disk(settings: Settings) -> list[Path]:
    """Every file under FILES_DIR, unfinished uploads in tmp/ included."""
    root = settings.attachments_dir
    return sorted(path for path in root.rglob("*") if path.is_file()) if root.exists() else []


def path_in(url: str) -> str:
    """A link's path and query, to request it from the test server."""
    parsed = aiohttp.client.URL(url)
    return str(parsed.relative())


BOUNDARY = "----tracker-test-boundary"


def raw_multipart(*parts: tuple[str, str | None, bytes]) -> bytes:
    """A multipart body written by hand (name, filename, content), so part headers can hold
    what client libraries refuse to write; a filename starting `*=` is sent as `filename*`
    (RFC 5987: percent-encoded UTF-8), where control characters can reach the server. Lone
    surrogates in a filename go out as the bytes they stand for (`surrogateescape`): bytes
    that are not UTF-8."""
    body = b""
    for name, filename, content in parts:
        disposition = f'form-data; name="{name}"'
        if filename is not None and filename.startswith("*="):
            disposition += f"; filename{filename}"
        elif filename is not None:
            disposition += f'; filename="{filename}"'
        body += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n".encode(
            errors="surrogateescape"
        )
        body += b"Content-Type: application/octet-stream\r\n\r\n" + content + b"\r\n"
    return body + f"--{BOUNDARY}--\r\n".encode()


MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"

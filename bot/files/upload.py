"""Reading an upload: the multipart body streamed to a temporary file in the store, never held
whole in memory, its size bounded as it arrives; whatever goes wrong, nothing is left behind."""

import asyncio
import contextlib
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TypeVar, cast

from aiohttp import BodyPartReader, MultipartReader, StreamReader, web
from aiohttp.client_exceptions import ClientPayloadError
from aiohttp.http_exceptions import HttpProcessingError

from bot.errors import (
    BadRequest,
    ClientGone,
    Invalid,
    PayloadTooLarge,
    RequestTimeout,
    UnsupportedMediaType,
)
from bot.files.names import stored_name, stored_type, utf8_text
from bot.files.store import FileStore
from bot.ids import new_id

T = TypeVar("T")

FILE_FIELD = "file"
TEXT_FIELDS = ("groupId", "channelId", "teamSiteUrl", "channelRelativeUrl")
MAX_TEXT_FIELD = 2048
# Form fields besides the file: the four the API reads, and room for what a client adds (those
# are read and dropped, never kept).
MAX_FIELDS = 16
READ_SIZE = 64 * 1024
# Chunks are gathered to this size before a thread writes them: a thread hop per megabyte keeps
# the loop free without paying a hop per network read.
WRITE_SIZE = 1024 * 1024
# What a multipart body may hold besides the file: boundaries, part headers, the text fields.
ENVELOPE_BYTES = 64 * 1024


@dataclass
class Upload:
    """A complete upload in the store's `tmp/`, not yet an attachment; `attachment_id` is the
    id it will have, known early so a failed commit can remove the file it placed."""

    temporary: Path
    filename: str
    content_type: str
    size: int
    fields: dict[str, str] = field(default_factory=dict)
    attachment_id: str = field(default_factory=new_id)

    def discard(self) -> None:
        self.temporary.unlink(missing_ok=True)


async def receive(
    request: web.Request, *, store: FileStore, limit: int, stall_seconds: float
) -> Upload:
    """The request's one file, in a temporary file; 400, 408, 413 or 415 otherwise."""
    if request.content_type != "multipart/form-data":
        raise UnsupportedMediaType("Content-Type must be multipart/form-data.")
    length = request.content_length
    if length is not None and length > limit + ENVELOPE_BYTES:
        raise too_large(limit)  # refused before a byte is read
    body = _BoundedBody(request.content, limit, stall_seconds)
    upload: Upload | None = None
    fields: dict[str, str] = {}
    count = 0
    try:
        reader = _multipart(request, body)
        while (part := await _next_part(reader, body)) is not None:
            if part.name == FILE_FIELD or part.filename is not None:
                if upload is not None:
                    raise Invalid(FILE_FIELD, "send one file per request")
                upload = await _save(part, store, limit, body)
                continue
            count += 1
            if count > MAX_FIELDS:
                raise BadRequest(f"Too many form fields: at most {MAX_FIELDS} besides the file.")
            text = await _text(part, body)
            if part.name in TEXT_FIELDS:
                fields[part.name] = text
    except BaseException:
        if upload is not None:
            upload.discard()
        raise
    if upload is None:
        raise Invalid(FILE_FIELD, "required: send the file as the multipart field 'file'")
    if upload.size == 0:
        upload.discard()
        raise Invalid(FILE_FIELD, "is empty")
    upload.fields = fields
    return upload


def too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"The file is larger than the {_size_text(limit)} upload limit.")


class _BoundedBody:
    """The request's body as the multipart reader takes it, counted as it is consumed: past the
    file's limit and the envelope's, whatever the bytes are (preamble, part headers, fields),
    the request is refused with 413, so no body runs on past its limit. Lines (preamble, part
    headers) are checked as they are read; a part's content after each chunk, once the reader
    has put back what it read ahead looking for the boundary."""

    def __init__(self, stream: StreamReader, limit: int, stall: float) -> None:
        self._stream = stream
        self._limit = limit  # the file's
        self._stall = stall
        self._consumed = 0

    async def arriving(self, step: Awaitable[T]) -> T:
        result = await _arriving(step, self._stall)
        self._check()
        return result

    def _check(self) -> None:
        if self._consumed > self._limit + ENVELOPE_BYTES:
            raise PayloadTooLarge(
                f"The request is larger than the {_size_text(self._limit)} upload limit "
                f"and {_size_text(ENVELOPE_BYTES)} for the rest of the form."
            )

    async def readline(self, *, max_line_length: int | None = None) -> bytes:
        line = await self._stream.readline(max_line_length=max_line_length)
        self._consumed += len(line)
        self._check()
        return line

    async def read(self, n: int = -1) -> bytes:
        data = await self._stream.read(n)
        self._consumed += len(data)
        return data

    def at_eof(self) -> bool:
        return self._stream.at_eof()

    def unread_data(self, data: bytes) -> None:
        self._consumed -= len(data)
        self._stream.unread_data(data)


def _multipart(request: web.Request, body: _BoundedBody) -> MultipartReader:
    try:
        return MultipartReader(request.headers, cast(StreamReader, body))
    except (ValueError, AssertionError) as exc:  # no boundary, or not multipart at all
        raise BadRequest(f"Malformed multipart body: {exc}") from None


async def _next_part(reader: MultipartReader, body: _BoundedBody) -> BodyPartReader | None:
    part = await body.arriving(reader.next())
    if part is not None and not isinstance(part, BodyPartReader):
        raise BadRequest("Malformed multipart body: nested multipart parts are not accepted")
    return part


async def _save(part: BodyPartReader, store: FileStore, limit: int, body: _BoundedBody) -> Upload:
    temporary = store.new_temporary()
    handle: BinaryIO = await asyncio.to_thread(open, temporary, "xb")
    size = 0
    pending = bytearray()
    try:
        while chunk := await body.arriving(part.read_chunk(READ_SIZE)):
            size += len(chunk)
            if size > limit:
                raise too_large(limit)
            pending += chunk
            if len(pending) >= WRITE_SIZE:
                full, pending = pending, bytearray()
                await asyncio.to_thread(handle.write, full)
        if pending:
            await asyncio.to_thread(handle.write, pending)
        await asyncio.to_thread(handle.close)
    except BaseException:
        with contextlib.suppress(OSError):
            handle.close()
        temporary.unlink(missing_ok=True)
        raise
    return Upload(
        temporary=temporary,
        filename=stored_name(part.filename),
        content_type=stored_type(part.headers.get("Content-Type")),
        size=size,
    )


async def _text(part: BodyPartReader, body: _BoundedBody) -> str:
    """A text field, at most MAX_TEXT_FIELD bytes of UTF-8 without NUL."""
    name = utf8_text(part.name or "field")  # the refusals name it, in JSON
    data = bytearray()
    while chunk := await body.arriving(part.read_chunk(READ_SIZE)):
        data += chunk
        if len(data) > MAX_TEXT_FIELD:
            raise Invalid(name, f"must be at most {MAX_TEXT_FIELD} bytes")
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise Invalid(name, "must be UTF-8 text") from None
    if "\x00" in text:
        raise Invalid(name, "must not contain the NUL character (U+0000)")
    return text.strip()


async def _arriving(step: Awaitable[T], stall: float) -> T:
    """One read of the body: at most `stall` seconds without progress (408); a client that
    went away, or a body that breaks off, ends the request (`ClientGone`)."""
    try:
        async with asyncio.timeout(stall):
            return await step
    except TimeoutError:
        raise RequestTimeout(f"The upload stalled for more than {stall:g} s.") from None
    except (ConnectionError, ClientPayloadError) as exc:
        raise ClientGone() from exc
    except ValueError as exc:  # the multipart reader's own complaints about the body
        raise BadRequest(f"Malformed multipart body: {exc}") from None
    except HttpProcessingError:  # a part's headers (aiohttp's message would echo them)
        raise BadRequest("Malformed multipart body: a part's headers are not valid") from None


def _size_text(size: int) -> str:
    mib = size / (1024 * 1024)
    return f"{mib:g} MiB" if mib >= 1 else f"{size} bytes"

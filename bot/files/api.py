"""Routes for attachments: upload, list, delete and serve an item's files, and the signed
download link that works without a session."""

from typing import Any
from urllib.parse import quote

from aiohttp import web

from bot.files import service as files
from bot.files.links import DOWNLOAD_PATH
from bot.files.queries import ATTACHMENTS
from bot.files.schemas import AttachmentOut, AttachmentPage, UploadForm
from bot.files.service import FILE_PATH, ITEM_PATH, StoredFile
from bot.files.upload import receive
from bot.keys import DOWNLOAD_LINKS, FILE_STORE
from bot.web.collections import query_of, render_page
from bot.web.routing import Access, Call, RouteTable

routes = RouteTable(tag="files")


@routes.route(
    "POST",
    ITEM_PATH,
    access=Access.CHANNEL,
    form=UploadForm,
    status=201,
    response=AttachmentOut,
    errors=(404, 408),
    summary="Attach a file to a bug or task (multipart; at most MAX_UPLOAD_BYTES)",
)
async def upload_attachment(call: Call) -> dict[str, Any]:
    app, item_id = call.request.app, call.request.match_info["item"]
    store, settings = app[FILE_STORE], call.settings
    # The item is checked before its bytes are read, and locked again when the row is added.
    async with call.unit(write=False) as uow:
        await files.find_item(uow, item_id=item_id)
    upload = await receive(
        call.request,
        store=store,
        limit=settings.max_upload_bytes,
        stall_seconds=settings.body_read_timeout_seconds,
    )
    try:
        async with call.unit() as uow:
            return await files.add_attachment(
                uow, item_id=item_id, upload=upload, store=store, links=app[DOWNLOAD_LINKS]
            )
    except BaseException:
        upload.discard()
        store.remove_later([upload.attachment_id])  # placed, if the commit was what failed
        raise


@routes.route(
    "GET",
    ITEM_PATH,
    access=Access.CHANNEL,
    response=AttachmentPage,
    errors=(404,),
    summary="A bug's or task's attachments: an OData collection, oldest first",
)
async def list_attachments(call: Call) -> dict[str, Any]:
    query = query_of(call, ATTACHMENTS)
    rows, count, more = await files.list_attachments(
        call.uow,
        item_id=call.request.match_info["item"],
        query=query,
        links=call.request.app[DOWNLOAD_LINKS],
    )
    return render_page(call, ATTACHMENTS, query, rows, count, more)


@routes.route(
    "DELETE",
    FILE_PATH,
    access=Access.CHANNEL,
    status=204,
    errors=(404,),
    summary="Remove an attachment and its file",
)
async def delete_attachment(call: Call) -> None:
    await files.delete_attachment(
        call.uow,
        item_id=call.request.match_info["item"],
        attachment_id=call.request.match_info["attachment"],
        store=call.request.app[FILE_STORE],
    )


@routes.route(
    "GET",
    FILE_PATH,
    access=Access.CHANNEL,
    errors=(404,),
    summary="An attachment's bytes, as a download",
)
async def attachment_content(call: Call) -> web.StreamResponse:
    found = await files.stored_file(
        call.uow,
        attachment_id=call.request.match_info["attachment"],
        item_id=call.request.match_info["item"],
        store=call.request.app[FILE_STORE],
    )
    return file_response(found)


@routes.route(
    "GET",
    DOWNLOAD_PATH,
    access=Access.PUBLIC,
    errors=(403, 404),
    query=(("expires", "When the link expires (Unix time)"), ("signature", "The link's seal")),
    summary="An attachment's bytes by its signed link (downloadUrl); no session",
)
async def download(call: Call) -> web.StreamResponse:
    attachment_id = call.request.match_info["id"]
    call.request.app[DOWNLOAD_LINKS].check(attachment_id, call.request.query)
    found = await files.stored_file(
        call.uow, attachment_id=attachment_id, store=call.request.app[FILE_STORE]
    )
    return file_response(found)


def file_response(found: StoredFile) -> web.FileResponse:
    """The bytes as a download under their stored name (RFC 6266), never sniffed or rendered."""
    return web.FileResponse(
        found.path,
        headers={
            "Content-Type": found.content_type,
            "Content-Disposition": content_disposition(found.filename),
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "sandbox",
            "Cache-Control": "private, no-store",
        },
    )


def content_disposition(filename: str) -> str:
    """`attachment` with an ASCII fallback name and the exact one as `filename*` (RFC 5987)."""
    fallback = "".join(c if 0x20 <= ord(c) < 0x7F and c not in '"\\\\%' else "_" for c in filename)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"

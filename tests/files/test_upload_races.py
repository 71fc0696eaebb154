"""Uploads against the unexpected: a client that leaves mid-upload, many at once, and the item
deleted while its file is on the way."""

import asyncio

from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy import func, select

from bot.db.tables import Attachment
from bot.keys import FILE_STORE
from bot.settings import Settings
from tests.factories import Factory, create_item
from tests.files.helpers import BOUNDARY, files_on_disk, form, raw_multipart, upload
from tests.waiting import until


async def stored_rows(factory: Factory) -> int:
    async with factory.work(write=False) as uow:
        return int(await uow.value(select(func.count()).select_from(Attachment)))


async def test_a_client_that_leaves_mid_upload_leaves_nothing_behind(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    body = raw_multipart(("file", "big.bin", b"z" * (4 * 1024 * 1024)))
    headers = {
        **ada.in_channel(),
        "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
        "Content-Length": str(len(body)),
    }
    head = f"POST /api/files/{bug['_id']} HTTP/1.1\r\nHost: test\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    reader, writer = await asyncio.open_connection(client.host, client.port)
    writer.write(head.encode() + body[: len(body) // 2])
    await writer.drain()
    # The server has begun the file: its temporary part is on disk.
    await until(lambda: bool(files_on_disk(settings)), "the upload to begin")

    writer.close()  # half the body sent, then gone

    await until(lambda: not files_on_disk(settings), "the partial file to be removed")
    assert await stored_rows(factory) == 0
    listed = await client.get(f"/api/files/{bug['_id']}", headers=ada.in_channel())
    assert (await listed.json())["value"] == []
    del reader


async def test_concurrent_uploads_each_keep_their_own_bytes(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    contents = [bytes([number]) * (100_000 + number) for number in range(12)]

    results = await asyncio.gather(
        *(
            upload(client, ada, bug["_id"], content=content, filename=f"{number}.bin")
            for number, content in enumerate(contents)
        )
    )

    assert [status for status, _ in results] == [201] * len(contents)
    by_name = {answer["filename"]: answer for _, answer in results}
    for number, content in enumerate(contents):
        answer = by_name[f"{number}.bin"]
        assert answer["size"] == len(content)
        assert settings.attachments_dir.joinpath(
            answer["_id"][-2:], answer["_id"]
        ).read_bytes() == (content)
    listed = await client.get(
        f"/api/files/{bug['_id']}", params={"$count": "true"}, headers=ada.in_channel()
    )
    assert (await listed.json())["@odata.count"] == len(contents)


async def test_uploads_racing_the_item_delete_leave_no_file_and_no_row(
    client: TestClient, factory: Factory, settings: Settings, app: web.Application
) -> None:
    ada = await factory.member()
    for _ in range(3):
        bug = await create_item(client, ada)
        uploads = [
            client.post(
                f"/api/files/{bug['_id']}", data=form(b"q" * 200_000), headers=ada.in_channel()
            )
            for _ in range(4)
        ]
        deleted = client.delete(f"/odata/bugs({bug['_id']})", headers=ada.in_channel())

        responses = await asyncio.gather(*uploads, deleted)

        assert {response.status for response in responses[:-1]} <= {201, 404}
        assert responses[-1].status == 204
    await app[FILE_STORE].settled()
    assert await stored_rows(factory) == 0
    assert files_on_disk(settings) == []

"""Uploads that must be refused, each with the API's error and nothing kept: no row, no file."""

from collections.abc import AsyncIterator

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import func, select

from bot.db.tables import Attachment
from bot.settings import Settings
from tests.factories import Factory, Member, create_item
from tests.files.helpers import BOUNDARY, MULTIPART, files_on_disk, form, raw_multipart, upload

LIMIT = 64 * 1024


@pytest.fixture
def settings(db: str, make_settings) -> Settings:  # noqa: ANN001
    return make_settings(db, MAX_UPLOAD_BYTES=LIMIT)


async def stored_rows(factory: Factory) -> int:
    async with factory.work(write=False) as uow:
        return int(await uow.value(select(func.count()).select_from(Attachment)))


async def assert_nothing_kept(factory: Factory, settings: Settings) -> None:
    assert await stored_rows(factory) == 0
    assert files_on_disk(settings) == []


async def post_raw(client: TestClient, member: Member, item_id: str, body: object, **headers: str):  # noqa: ANN201
    response = await client.post(
        f"/api/files/{item_id}",
        data=body,
        headers={**member.in_channel(), "Content-Type": MULTIPART, **headers},
    )
    return response.status, await response.json()


async def test_a_file_over_the_limit_is_413_and_nothing_is_kept(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    # Just over: the declared length passes the first check, the count while streaming stops it.
    for size in (LIMIT + 1, LIMIT * 4):
        status, body = await upload(client, ada, bug["_id"], content=b"x" * size)
        assert status == 413, body
        assert body == {"error": "The file is larger than the 65536 bytes upload limit."}
    await assert_nothing_kept(factory, settings)
    status, _ = await upload(client, ada, bug["_id"], content=b"x" * LIMIT)
    assert status == 201


async def test_a_chunked_upload_over_the_limit_is_413(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    body = raw_multipart(("file", "big.bin", b"y" * (LIMIT * 3)))

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: sent chunked
        for start in range(0, len(body), 8192):
            yield body[start : start + 8192]

    status, answer = await post_raw(client, ada, bug["_id"], chunks())

    assert status == 413, answer
    await assert_nothing_kept(factory, settings)


def chunked(body: bytes) -> AsyncIterator[bytes]:
    """The body without a Content-Length, so only counting as it arrives can bound it."""

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(body), 8192):
            yield body[start : start + 8192]

    return chunks()


async def test_more_form_fields_than_the_limit_are_400_and_nothing_is_kept(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    padding = [(f"extra{n}", None, b"p" * 100) for n in range(1000)]
    known = [("groupId", None, b"g")] * 17

    for fields in (padding, known):
        body = raw_multipart(*fields, ("file", "a.txt", b"a"))
        status, answer = await post_raw(client, ada, bug["_id"], chunked(body))
        assert (status, answer) == (
            400, {"error": "Too many form fields: at most 16 besides the file."}
        )  # fmt: skip

    await assert_nothing_kept(factory, settings)
    allowed = raw_multipart(*padding[:16], ("file", "a.txt", b"a"))
    assert (await post_raw(client, ada, bug["_id"], chunked(allowed)))[0] == 201


async def test_a_body_padded_past_its_limit_is_413_and_nothing_is_kept(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    file = raw_multipart(("file", "a.txt", b"a" * LIMIT))
    preamble = b"ignored preamble line\r\n" * 10_000  # before the first boundary
    header_lines = b"".join(b"X-Pad-%d: %s\r\n" % (n, b"h" * 1000) for n in range(100))
    heavy_part = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="groupId"\r\n'.encode()
        + header_lines
        + b"\r\ng\r\n"
    )

    for body in (preamble + file, heavy_part * 3 + file):
        status, answer = await post_raw(client, ada, bug["_id"], chunked(body))
        assert (status, answer) == (413, {"error": (
            "The request is larger than the 65536 bytes upload limit "
            "and 65536 bytes for the rest of the form."
        )})  # fmt: skip

    await assert_nothing_kept(factory, settings)


async def test_empty_missing_and_extra_files_are_400(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    cases = {
        "file: is empty": raw_multipart(("file", "empty.txt", b"")),
        "file: required: send the file as the multipart field 'file'": raw_multipart(
            ("groupId", None, b"g")
        ),
        "file: send one file per request": raw_multipart(
            ("file", "one.txt", b"1"), ("file", "two.txt", b"2")
        ),
        "channelId: is not the request's channel (x-svc-channelId)": raw_multipart(
            ("channelId", None, b"19:another@thread.tacv2"), ("file", "a.txt", b"a")
        ),
        "Malformed multipart body: a part's headers are not valid": raw_multipart(
            ("file", "raw\x01control.txt", b"a")
        ),
        "groupId: must be at most 2048 bytes": raw_multipart(
            ("groupId", None, b"g" * 3000), ("file", "a.txt", b"a")
        ),
        # A field name whose bytes are not UTF-8 (Latin-1 "é") is named with U+FFFD for them.
        "\ufffd: must be at most 2048 bytes": raw_multipart(
            ("\udce9", None, b"g" * 3000), ("file", "a.txt", b"a")
        ),
        "\ufffd: must not contain the NUL character (U+0000)": raw_multipart(
            ("\udce9", None, b"\x00"), ("file", "a.txt", b"a")
        ),
    }
    for message, body in cases.items():
        status, answer = await post_raw(client, ada, bug["_id"], body)
        assert (status, answer) == (400, {"error": message})
    await assert_nothing_kept(factory, settings)


async def test_a_body_that_is_not_multipart_is_refused(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    url = f"/api/files/{bug['_id']}"
    as_json = await client.post(url, json={"file": "x"}, headers=ada.in_channel())
    status, broken = await post_raw(client, ada, bug["_id"], b"--nonsense\r\n\r\n")

    assert as_json.status == 415
    assert await as_json.json() == {"error": "Content-Type must be multipart/form-data."}
    assert status == 400 and broken["error"].startswith("Malformed multipart body: ")
    await assert_nothing_kept(factory, settings)


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("../../../etc/passwd", "passwd"),
        # A quoted string escapes backslashes: `..\..\windows\win.ini` is what arrives.
        ("..\\\\..\\\\windows\\\\win.ini", "win.ini"),
        ("/absolute/path/notes.md", "notes.md"),
        ("..", "attachment"),
        ("dir/", "attachment"),
        ("*=UTF-8''tab%09here%00%01%1F%7F%0D%0A.txt", "tabhere.txt"),
        ("*=UTF-8''..%2F..%2Fetc%2Fcron.d%2Fjob", "job"),
        ("*=UTF-8''evil%E2%80%AEtxt.exe", "eviltxt.exe"),  # U+202E would disguise the type
        ("\udce9t\udce9.txt", "\ufffdt\ufffd.txt"),  # Latin-1 "été.txt": bytes that are not UTF-8
    ],
)
async def test_the_stored_name_is_a_bare_base_name(
    client: TestClient, factory: Factory, settings: Settings, sent: str, kept: str
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)

    status, answer = await post_raw(
        client, ada, bug["_id"], raw_multipart(("file", sent, b"content"))
    )

    assert status == 201, answer
    assert answer["filename"] == kept
    root = settings.attachments_dir.resolve()
    on_disk = files_on_disk(settings)
    assert len(on_disk) == 1 and on_disk[0].resolve().is_relative_to(root)
    assert on_disk[0].name == answer["_id"]


async def test_another_team_cannot_upload_to_list_or_delete_an_item(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member("Ada")
    bug = await create_item(client, ada)
    await factory.team("19:team-b@thread.tacv2", name="Team B")
    await factory.channel("19:channel-b@thread.tacv2", team_id="19:team-b@thread.tacv2")
    eve = await factory.member("Eve", team_id="19:team-b@thread.tacv2")
    own = eve.in_channel("19:team-b@thread.tacv2", "19:channel-b@thread.tacv2")
    foreign = eve.in_channel()
    attachment_path = f"/api/files/{bug['_id']}/{'0' * 24}"

    refusals = [
        (await client.post(f"/api/files/{bug['_id']}", data=form(b"x"), headers=foreign), 403),
        (await client.post(f"/api/files/{bug['_id']}", data=form(b"x"), headers=own), 404),
        (await client.get(f"/api/files/{bug['_id']}", headers=foreign), 403),
        (await client.get(f"/api/files/{bug['_id']}", headers=own), 404),
        (await client.delete(attachment_path, headers=own), 404),
    ]

    assert [response.status for response, _ in refusals] == [code for _, code in refusals]
    await assert_nothing_kept(factory, settings)

"""Attachments through the real HTTP API: upload, list, download, delete, and item details."""

from datetime import timedelta

from aiohttp import web
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.keys import FILE_STORE
from bot.settings import Settings
from tests.factories import Factory, create_item
from tests.files.helpers import files_on_disk, form, path_in, upload, uploaded


async def test_upload_answers_the_attachment_and_stores_the_bytes(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member("Ada")
    bug = await create_item(client, ada)
    content = bytes(range(256)) * 1000

    attachment = await uploaded(
        client, ada, bug["_id"], content=content, filename="trace.bin", content_type="image/png"
    )

    assert set(attachment) == {
        "_id", "source", "sourceId", "sourceUrl", "downloadUrl", "filename", "size"
    }  # fmt: skip
    assert attachment["source"] == "Svc.Native"
    assert attachment["sourceId"] == attachment["_id"]
    assert attachment["filename"] == "trace.bin"
    assert attachment["size"] == len(content)
    assert attachment["sourceUrl"].endswith(f"/api/files/{bug['_id']}/{attachment['_id']}")
    assert [path.read_bytes() for path in files_on_disk(settings)] == [content]


async def test_download_link_serves_the_file_without_a_session(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    attachment = await uploaded(
        client, ada, bug["_id"], content=b"<html>x</html>", filename="page.html",
        content_type="text/html",
    )  # fmt: skip

    response = await client.get(path_in(attachment["downloadUrl"]))  # no cookie

    assert response.status == 200
    assert await response.read() == b"<html>x</html>"
    assert response.headers["Content-Type"] == "text/html"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Content-Disposition"] == (
        "attachment; filename=\"page.html\"; filename*=UTF-8''page.html"
    )


async def test_a_non_ascii_name_is_kept_exactly_in_filename_star(
    client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    attachment = await uploaded(client, ada, bug["_id"], filename="Résumé 100%;v2.pdf")

    response = await client.get(path_in(attachment["downloadUrl"]))

    assert response.status == 200
    assert attachment["filename"] == "Résumé 100%;v2.pdf"
    assert response.headers["Content-Disposition"] == (
        'attachment; filename="R_sum_ 100_;v2.pdf"; '
        "filename*=UTF-8''R%C3%A9sum%C3%A9%20100%25%3Bv2.pdf"
    )


async def test_source_url_serves_the_file_to_a_member(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    attachment = await uploaded(client, ada, bug["_id"], content=b"abc")

    with_session = await client.get(path_in(attachment["sourceUrl"]), headers=ada.in_channel())
    without = await client.get(path_in(attachment["sourceUrl"]))

    assert with_session.status == 200 and await with_session.read() == b"abc"
    assert without.status == 401


async def test_list_pages_the_item_attachments_oldest_first(
    client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    other = await create_item(client, ada, name="Other")
    made = []
    for number in range(3):
        made.append(await uploaded(client, ada, bug["_id"], filename=f"f{number}.txt"))
        clock.advance(timedelta(seconds=1))
    await uploaded(client, ada, other["_id"])

    response = await client.get(
        f"/api/files/{bug['_id']}", params={"$top": "2", "$skip": "1"}, headers=ada.in_channel()
    )

    body = await response.json()
    assert response.status == 200, body
    assert body["@odata.count"] == 3
    assert [row["filename"] for row in body["value"]] == ["f1.txt", "f2.txt"]
    # The same attachments; their links are signed afresh, each valid from now.
    without_links = [{k: v for k, v in row.items() if k != "downloadUrl"} for row in made[1:]]
    assert [{k: v for k, v in row.items() if k != "downloadUrl"} for row in body["value"]] == (
        without_links
    )


async def test_details_show_the_item_attachments(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    task = await create_item(client, ada, of="task")
    attachment = await uploaded(client, ada, task["_id"])

    response = await client.get(f"/api/tasks/{task['_id']}/details", headers=ada.in_channel())

    details = await response.json()
    assert [row["_id"] for row in details["attachments"]] == [attachment["_id"]]
    assert details["attachments"][0]["filename"] == "report.txt"


async def test_delete_removes_the_attachment_and_its_file(
    client: TestClient, factory: Factory, settings: Settings, app: web.Application
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    kept = await uploaded(client, ada, bug["_id"], content=b"kept")
    gone = await uploaded(client, ada, bug["_id"], content=b"gone")

    url = f"/api/files/{bug['_id']}/{gone['_id']}"
    response = await client.delete(url, headers=ada.in_channel())
    await app[FILE_STORE].settled()

    assert response.status == 204
    assert [path.read_bytes() for path in files_on_disk(settings)] == [b"kept"]
    listed = await client.get(f"/api/files/{bug['_id']}", headers=ada.in_channel())
    assert [row["_id"] for row in (await listed.json())["value"]] == [kept["_id"]]
    again = await client.delete(url, headers=ada.in_channel())
    assert again.status == 404
    link = await client.get(path_in(gone["downloadUrl"]))
    assert link.status == 404


async def test_deleting_the_item_deletes_its_files(
    client: TestClient, factory: Factory, settings: Settings, app: web.Application
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    other = await create_item(client, ada, name="Other")
    for _ in range(2):
        await uploaded(client, ada, bug["_id"], content=b"of the bug")
    await uploaded(client, ada, other["_id"], content=b"of the other")

    response = await client.delete(f"/odata/bugs({bug['_id']})", headers=ada.in_channel())
    await app[FILE_STORE].settled()

    assert response.status == 204
    assert [path.read_bytes() for path in files_on_disk(settings)] == [b"of the other"]


async def test_a_tampered_link_is_refused(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    first = await uploaded(client, ada, bug["_id"], content=b"first")
    second = await uploaded(client, ada, bug["_id"], content=b"second")
    url = path_in(first["downloadUrl"])
    expires = url.split("expires=")[1].split("&")[0]

    attempts = [
        url.replace(first["_id"], second["_id"]),  # another file under the first's seal
        url.replace(f"expires={expires}", f"expires={int(expires) + 3600}"),  # a later expiry
        url[:-1] + ("0" if url[-1] != "0" else "1"),  # one character of the signature
        url.split("&signature=")[0],  # no signature
        f"/files/download/{first['_id']}",
    ]
    for attempt in attempts:
        response = await client.get(attempt)
        assert response.status == 403, attempt
        assert await response.json() == {"error": "The download link is invalid or has expired."}


async def test_an_expired_link_is_refused(
    client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    attachment = await uploaded(client, ada, bug["_id"])

    clock.advance(timedelta(minutes=14, seconds=59))
    still = await client.get(path_in(attachment["downloadUrl"]))
    clock.advance(timedelta(seconds=1))
    expired = await client.get(path_in(attachment["downloadUrl"]))

    assert still.status == 200
    assert expired.status == 403


async def test_upload_without_a_session_is_refused_and_stores_nothing(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    headers = {k: v for k, v in ada.in_channel().items() if k != "Cookie"}

    response = await client.post(f"/api/files/{bug['_id']}", data=form(b"x"), headers=headers)

    assert response.status == 401
    assert files_on_disk(settings) == []


async def test_upload_to_a_missing_item_is_404(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    status, body = await upload(client, ada, "0" * 24)
    assert status == 404 and body == {"error": f"Item '{'0' * 24}' not found."}


async def test_a_link_altered_in_its_query_is_refused(client: TestClient, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada)
    attachment = await uploaded(client, ada, bug["_id"])
    url = path_in(attachment["downloadUrl"])
    path, query = url.split("?")
    expires = query.split("expires=")[1].split("&")[0]
    signature = query.split("signature=")[1]
    with_expires = f"{path}?expires={{}}&signature={signature}"

    attempts = [
        f"{path}?expires={expires}&signature=%C3%A9{signature[1:]}",  # a non-ASCII signature
        f"{path}?expires={expires}&signature=\u0661",
        with_expires.format("0" + expires),  # the same number, written differently
        with_expires.format("+" + expires),
        with_expires.format(" " + expires),
        with_expires.format("".join(chr(0x0660 + int(d)) for d in expires)),  # Arabic digits
        f"{url}&expires=9999999999",  # a second expiry
        f"{path}?expires=9999999999&{query}",
        f"{url}&signature={signature}",  # a second signature
        f"{path}?expires={expires}&signature={signature.upper()}",
        f"{url}&download=1",  # anything added
    ]
    for attempt in attempts:
        response = await client.get(attempt)
        assert response.status == 403, attempt
        assert await response.json() == {"error": "The download link is invalid or has expired."}
    assert (await client.get(url)).status == 200

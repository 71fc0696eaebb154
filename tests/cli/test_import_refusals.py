"""`admin import` refuses what no export holds, before it costs the machine: JSON nested deeper
than an export, a record larger than any item can be (refused by its size, before it is
parsed), and text holding U+0000 (refused naming the record, on both databases, as the API
refuses it). In each case nothing is imported."""

import json
from pathlib import Path

from aiohttp.test_utils import TestClient

from bot.cli.import_shape import MAX_DEPTH, MAX_RECORD_BYTES
from tests.cli.helpers import Cli
from tests.cli.test_import import imported, listed
from tests.factories import Factory

NUL_REFUSED = "must not contain the NUL character (U+0000)"


def export_file(folder: Path, text: str, name: str = "export.json") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


async def test_json_nested_deeper_than_an_export_is_refused_before_it_is_read(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    depth = 3000
    prefix = '{"format":"teams-tracker-export","bugs":[{"name":"Fine"},{"name":"Deep","body":'
    path = export_file(tmp_path, prefix + "[" * depth + "]" * depth + "}]}")
    offset = len(prefix) + (MAX_DEPTH - 3)  # the bracket that goes one level too deep

    failed = await imported(cli, path, code=1)

    assert failed["error"] == (
        f"export.json: JSON nested {MAX_DEPTH + 1} levels deep at byte {offset}; "
        f"an import file nests at most {MAX_DEPTH}."
    )
    assert await listed(client, ada) == []
    text = "[" * 250 + '"{\\' + "]"  # brackets in text are no nesting
    bucket = [[[["deep", {"as": [[[["stored"]]]]}]]]]
    fine = export_file(
        tmp_path,
        json.dumps({"bugs": [{"name": text, "body": text, "bucket": bucket}]}),
        "fine.json",
    )
    assert (await imported(cli, fine))["items"] == {"bugs": 1, "tasks": 0}
    [bug] = await listed(client, ada)
    assert (bug["body"], bug["bucket"]) == (text, bucket)


async def test_a_record_larger_than_the_limit_is_refused_by_its_size_and_named(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    huge = "x" * (MAX_RECORD_BYTES + 1)
    for name, text in [
        ("bug.json", json.dumps({"bugs": [{"name": "Fine"}, {"name": "Big", "body": huge}]})),
        ("value.json", json.dumps({"tasks": [{"name": "Fine"}, huge]})),
        ("items.csv", f"name,body\nFine,\nBig,{huge}\n"),
        ("fields.csv", "name,body\nFine,\nBig," + ",".join([f'"{"y" * 100_000}\n"'] * 170) + "\n"),
    ]:
        path = export_file(tmp_path, text, name)
        failed = await imported(cli, path, code=1)
        where = {
            "bug.json": "bugs[1]",
            "value.json": "the value at byte 27",
            "items.csv": "the record at line 3",
            "fields.csv": "the record at line 3",  # many fields, each on its lines
        }[name]
        assert failed["error"] == (
            f"{name}: {where} is larger than {MAX_RECORD_BYTES // 2**20} MiB, the most a "
            "record may be: nothing imported."
        ), name
    assert await listed(client, ada) == []


async def test_the_largest_item_a_channel_can_hold_is_under_the_record_limit(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    item = {
        "name": "\u00e9" * 255,
        "body": "\u00e9" * (64 * 1024 // 2),  # 64 KiB of UTF-8
        "bucket": ["b" * 255] * 100,
        "assignedTo": [ada.user.username],
        "messages": [{"body": {"content": "\u00e9" * 28_000}}] * 20,  # exported, not read
    }
    path = export_file(tmp_path, json.dumps({"bugs": [item]}))  # escaped: \u00e9, 6 bytes each
    assert path.stat().st_size < MAX_RECORD_BYTES

    answer = await imported(cli, path)

    assert answer["items"] == {"bugs": 1, "tasks": 0}
    [bug] = await listed(client, ada)
    assert bug["body"] == item["body"]


async def test_text_holding_nul_is_refused_naming_the_record_on_both_databases(
    cli: Cli, database: str, factory: Factory, client: TestClient, tmp_path: Path
) -> None:
    ada = await factory.member()
    document = {
        "bugs": [
            {"name": "Fine"},
            {"name": "Nul\u0000inside"},
            {"name": "Fine too", "bucket": ["a", "b\u0000"]},
        ]
    }
    json_path = export_file(tmp_path, json.dumps(document))
    csv_path = export_file(tmp_path, "name,body\nFine,\nAlso fine,nul\x00here\n", "items.csv")

    from_json = await imported(cli, json_path, code=1)
    from_csv = await imported(cli, csv_path, code=1)

    assert from_json["error"] == "2 of 3 records are wrong: nothing imported."
    assert from_json["errors"] == [
        {"at": "bugs[1]", "error": f"name: {NUL_REFUSED}"},
        {"at": "bugs[2]", "error": f"bucket.1: {NUL_REFUSED}"},
    ]
    assert from_csv["errors"] == [{"line": 3, "error": f"body: {NUL_REFUSED}"}]
    assert await listed(client, ada) == []

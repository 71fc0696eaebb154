"""Severities: bugs only, at most 8 per channel, the coded duplicate 400, renames reach bugs."""

from tests.factories import Factory, create_item
from tests.fields.helpers import BASE, field_values, stored_item

EXISTS = {"code": "Severity already existed.", "message": "Severity already existed."}


async def add(client, member, name: str, **fields: object):  # noqa: ANN001, ANN201
    return await client.post(
        "/odata/severity", json={"name": name, **fields}, headers=member.in_channel()
    )


async def test_the_list_has_the_bug_defaults(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.get("/api/severity", headers=ada.in_channel())
    assert response.status == 200
    page = await response.json()
    assert page["@odata.context"] == f"{BASE}/odata/$metadata#severity"
    assert page["@odata.count"] == 4
    assert [(row["name"], row["value"], row["primary"]) for row in page["value"]] == [
        ("Critical", 3, False),
        ("High", 2, False),
        ("Medium", 1, True),
        ("Low", 0, False),
    ]
    assert {row["type"] for row in page["value"]} == {"Bug"}
    assert page["value"][0]["@odata.id"] == f"{BASE}/odata/severity('{page['value'][0]['_id']}')"
    tasks = await client.get(
        "/api/severity", params={"$filter": "type eq 'Task'"}, headers=ada.in_channel()
    )
    assert (await tasks.json())["value"] == []


async def test_create_severity_is_for_bugs(client, factory: Factory) -> None:
    ada = await factory.member()
    made = await add(client, ada, "Cosmetic", color="#cccccc", value=0, order=10)
    assert made.status == 201
    body = await made.json()
    assert (body["type"], body["name"], body["color"], body["order"]) == (
        "Bug",
        "Cosmetic",
        "#cccccc",
        10,
    )
    assert body["@odata.context"] == f"{BASE}/odata/$metadata#severity/$entity"
    assert (await add(client, ada, "Explicit", type="Bug")).status == 201
    for_tasks = await add(client, ada, "Task severity", type="Task")
    assert for_tasks.status == 400
    assert (await for_tasks.json())["error"].startswith("type")
    assert set(await field_values(factory, "severity", "Task")) == set()
    assert (await create_item(client, ada, severity="cosmetic"))["severity"] == "Cosmetic"


async def test_duplicate_severity_answers_the_coded_400(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await add(client, ada, "critical")
    assert response.status == 400
    assert await response.json() == EXISTS
    assert len(await field_values(factory, "severity")) == 4


async def test_a_ninth_severity_is_refused(client, factory: Factory) -> None:
    ada = await factory.member()
    for number in range(4):
        assert (await add(client, ada, f"S{number}")).status == 201
    ninth = await add(client, ada, "S9")
    assert ninth.status == 400
    assert "at most 8 severities" in (await ninth.json())["error"]
    assert len(await field_values(factory, "severity")) == 8
    # Room again once one goes.
    s0 = (await field_values(factory, "severity"))["S0"]
    assert (
        await client.delete(f"/odata/severity({s0.id})", headers=ada.in_channel())
    ).status == 204
    assert (await add(client, ada, "S9")).status == 201


async def test_the_limit_is_per_channel(client, factory: Factory) -> None:
    ada = await factory.member()
    for number in range(4):
        assert (await add(client, ada, f"S{number}")).status == 201
    await factory.channel("19:other@thread.tacv2", name="Other")
    other = await client.post(
        "/odata/severity",
        json={"name": "S9"},
        headers=ada.in_channel(channel="19:other@thread.tacv2"),
    )
    assert other.status == 201


async def test_renaming_a_severity_renames_it_on_its_bugs(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, severity="Critical")
    other = await create_item(client, ada, severity="High")
    critical = (await field_values(factory, "severity"))["Critical"]
    response = await client.patch(
        f"/odata/severity({critical.id})", json={"name": "Blocker"}, headers=ada.in_channel()
    )
    assert response.status == 204
    listed = await (
        await client.get(
            "/api/bugs", params={"$filter": "severity eq 'Blocker'"}, headers=ada.in_channel()
        )
    ).json()
    assert [row["_id"] for row in listed["value"]] == [bug["_id"]]
    assert listed["value"][0]["severity"] == "Blocker"
    assert (await stored_item(factory, other["_id"])).severity == "High"


async def test_severity_patch_rules(client, factory: Factory) -> None:
    ada = await factory.member()
    severities = await field_values(factory, "severity")
    high, medium = severities["High"], severities["Medium"]
    for body in ({"name": "low"}, {"type": "Task"}, {"primary": None}):
        response = await client.patch(
            f"/odata/severity({high.id})", json={**body}, headers=ada.in_channel()
        )
        assert response.status == 400, body
    duplicate = await client.patch(
        f"/odata/severity({high.id})", json={"name": "low"}, headers=ada.in_channel()
    )
    assert await duplicate.json() == EXISTS
    demote = await client.patch(
        f"/odata/severity({medium.id})", json={"primary": False}, headers=ada.in_channel()
    )
    assert demote.status == 400
    promote = await client.patch(
        f"/odata/severity({high.id})", json={"primary": True}, headers=ada.in_channel()
    )
    assert promote.status == 204
    after = await field_values(factory, "severity")
    assert [name for name, row in after.items() if row.primary] == ["High"]
    assert (await create_item(client, ada))["severity"] == "High"


async def test_a_priority_is_no_severity(client, factory: Factory) -> None:
    ada = await factory.member()
    priority = (await field_values(factory, "priority"))["Low"]
    for response in (
        await client.patch(
            f"/odata/severity({priority.id})", json={"color": "#000000"}, headers=ada.in_channel()
        ),
        await client.delete(f"/odata/severity({priority.id})", headers=ada.in_channel()),
    ):
        assert response.status == 404
    assert (await field_values(factory, "priority"))["Low"].color == priority.color

"""A user's `mapping` array: how a member is known at the external sources, set by hand by a
team member and listed with the team's members."""

import asyncio
from typing import Any

from tests.factories import Factory, Member

ADO = {"source": "Microsoft.Vsts", "projectHostname": "https://dev.azure.com/contoso"}


async def set_mapping(client, member: Member, user_id: str, mapping: list[dict[str, Any]]):  # noqa: ANN201
    return await client.patch(
        f"/api/users/{user_id}", json={"mapping": mapping}, headers=member.in_channel()
    )


async def listed(client, member: Member) -> dict[str, list[dict[str, Any]]]:
    response = await client.get("/api/users", headers=member.in_channel())
    assert response.status == 200
    return {user["displayName"]: user["mapping"] for user in (await response.json())["value"]}


async def test_a_member_sets_how_another_is_known_at_a_source_and_the_list_shows_it(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    response = await set_mapping(
        client,
        ada,
        grace.user.id,
        [{**ADO, "sourceId": "id-1", "displayName": "G. Hopper", "email": "gh@elsewhere.example"}],
    )
    assert response.status == 200, await response.text()
    (mapping,) = (await response.json())["mapping"]
    assert mapping["localId"] == grace.user.id
    assert (mapping["source"], mapping["sourceId"]) == ("Microsoft.Vsts", "id-1")
    assert mapping["projectHostname"] == "https://dev.azure.com/contoso"
    assert (mapping["displayName"], mapping["email"]) == ("G. Hopper", "gh@elsewhere.example")
    shown = await listed(client, ada)
    assert shown["Ada"] == []
    assert [m["sourceId"] for m in shown["Grace"]] == ["id-1"]
    selected = await client.get(
        "/api/users", params={"$select": "displayName,mapping"}, headers=ada.in_channel()
    )
    assert {"displayName", "mapping"} <= set((await selected.json())["value"][0])
    # The array is replaced whole; an empty one clears it.
    replaced = await set_mapping(client, ada, grace.user.id, [{**ADO, "sourceId": "id-2"}])
    assert [m["sourceId"] for m in (await replaced.json())["mapping"]] == ["id-2"]
    cleared = await set_mapping(client, ada, grace.user.id, [])
    assert (await cleared.json())["mapping"] == []


async def test_bad_mappings_are_refused_and_change_nothing(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    assert (
        await set_mapping(client, ada, grace.user.id, [{**ADO, "sourceId": "id-1"}])
    ).status == 200
    for bad in (
        [{**ADO, "source": "Svc.Native", "sourceId": "x"}],
        [{**ADO, "source": "Trello", "sourceId": "x"}],
        [{**ADO, "sourceId": ""}],
        [{"source": "Jira", "sourceId": "x"}],
        [{**ADO, "sourceId": "x"}, {**ADO, "sourceId": "x"}],
        [{**ADO, "sourceId": "x" * 256}],
        "not a list",
    ):
        response = await client.patch(
            f"/api/users/{grace.user.id}", json={"mapping": bad}, headers=ada.in_channel()
        )
        assert response.status == 400, (bad, await response.text())
        assert "error" in await response.json()
    taken = await set_mapping(client, ada, ada.user.id, [{**ADO, "sourceId": "id-1"}])
    assert taken.status == 409
    assert await taken.json() == {"error": "Source user 'id-1' is matched to another user."}
    # The same id at another address, or at another source, is someone else.
    elsewhere = {"source": "Jira", "projectHostname": "https://contoso.atlassian.net"}
    assert (
        await set_mapping(client, ada, ada.user.id, [{**elsewhere, "sourceId": "id-1"}])
    ).status == 200
    stranger = await factory.user("Stranger")
    assert (
        await set_mapping(client, ada, stranger.id, [{**ADO, "sourceId": "id-9"}])
    ).status == 404
    assert (await set_mapping(client, ada, "0" * 24, [])).status == 404
    shown = await listed(client, ada)
    assert [m["sourceId"] for m in shown["Grace"]] == ["id-1"]
    assert [m["source"] for m in shown["Ada"]] == ["Jira"]


async def test_two_members_claiming_one_source_user_at_once_get_one_match(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    answers = await asyncio.gather(
        *(set_mapping(client, ada, m.user.id, [{**ADO, "sourceId": "same"}]) for m in (ada, grace))
    )
    assert sorted(answer.status for answer in answers) == [200, 409]
    shown = await listed(client, ada)
    assert sorted(len(mapping) for mapping in shown.values()) == [0, 1]

"""People at the source matched to team members: by email, kept in the user's `mapping` array,
and by that array first, so a member known there by another address is matched both ways once
a team member sets it by hand."""

from datetime import timedelta

from bot.clock import FrozenClock
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from bot.sync.standins.azure_devops.identities import parse_identity
from tests.factories import Factory
from tests.sync.linking import bugs, link, run_jobs

AT_WORK = "Ada at Work <ada.work@contoso.example>"


async def mappings(client, member) -> dict[str, list[dict]]:  # noqa: ANN001
    response = await client.get("/api/users", headers=member.in_channel())
    return {user["_id"]: user["mapping"] for user in (await response.json())["value"]}


async def test_a_match_by_email_is_kept_in_the_users_mapping(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member("Ada Lovelace")
    there = f"Ada Lovelace <{ada.user.email}>"
    standin.seed(2, types=("Bug",), fields=lambda n: {"System.AssignedTo": there})
    await link(client, ada, standin)
    (kept,) = (await mappings(client, ada))[ada.user.id]
    assert kept["source"] == "Microsoft.Vsts"
    assert kept["sourceId"] == parse_identity(there).id
    assert kept["projectHostname"] == standin.org_url.casefold()
    assert kept["localId"] == ada.user.id


async def test_a_member_mapped_by_hand_is_matched_both_ways(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada Lovelace")
    (first, second) = standin.seed(
        2, types=("Bug",), fields=lambda n: {"System.AssignedTo": AT_WORK}
    )
    await link(client, ada, standin)
    before = sorted(await bugs(client, ada), key=lambda bug: int(bug["sourceId"]))
    assert [bug["sync"]["unmatched"] for bug in before] == [["Ada at Work"], ["Ada at Work"]]
    mapped = await client.patch(
        f"/api/users/{ada.user.id}",
        json={
            "mapping": [
                {
                    "source": "Microsoft.Vsts",
                    "sourceId": parse_identity(AT_WORK).id,
                    "projectHostname": standin.org_url + "/",
                    "email": "ada.work@contoso.example",
                }
            ]
        },
        headers=ada.in_channel(),
    )
    assert mapped.status == 200, await mapped.text()
    clock.advance(timedelta(minutes=1))
    standin.change(first, {"System.Title": "Touched there"})
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)
    by_source = {bug["sourceId"]: bug for bug in await bugs(client, ada)}
    touched = by_source[str(first)]
    assert [a["_id"] for a in touched["assignedTo"]] == [ada.user.id]
    assert "unmatched" not in touched["sync"]
    # Assigned here, the member goes out under the address the source knows them by.
    other = by_source[str(second)]
    standin.change(second, {"System.AssignedTo": None})
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)
    patched = await client.patch(
        f"/odata/bugs({other['_id']})", json={"assignedTo": [ada.user.id]}, headers=ada.in_channel()
    )
    assert patched.status == 204
    await run_jobs(client)
    work_item = standin.work_item(second)
    assert work_item is not None
    assert work_item["fields"]["System.AssignedTo"]["uniqueName"] == "ada.work@contoso.example"

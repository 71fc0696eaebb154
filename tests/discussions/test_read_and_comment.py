"""Reading a discussion (root and replies, or the replies alone, paged and sorted) and replying
in it through the bot; every refusal is the spec's error and changes nothing."""

from typing import Any

import pytest
from sqlalchemy import delete

from bot.db.tables import ConversationReference
from bot.directory.schemas import MembershipType
from bot.discussions.schemas import MAX_COMMENT
from bot.errors import PRIVATE_CHANNELS_UNSUPPORTED
from tests.discussions.helpers import Desk
from tests.factories import CHANNEL, TEAM
from tests.generated.cross_team_world import CHANNEL_B, TEAM_B
from tests.teams.activities import GRACE

PRIVATE = "19:private@thread.tacv2"


async def _discussed_with_replies(desk: Desk, count: int) -> tuple[str, str, list[str]]:
    bug = await desk.bug()
    root = await desk.started(bug["_id"])
    ids = [f"17200000000{n:02d}" for n in range(count)]
    for message_id in ids:
        await desk.teams(desk.reply(root["id"], f"reply {message_id}", message_id=message_id))
    return bug["_id"], root["id"], ids


async def test_a_comment_reaches_the_thread_as_the_callers_escaped_line_and_is_kept(
    desk: Desk,
) -> None:
    bug = await desk.bug()
    root = await desk.started(bug["_id"])
    response = await desk.comment(bug["_id"], {"content": 'Fixed in <b>1.2</b> & "shipped"'})
    assert response.status == 201, await response.text()
    message = await response.json()

    [sent] = desk.connector.sent()
    thread = f"{CHANNEL};messageid={root['id']}"
    assert sent.path == f"/v3/conversations/{thread}/activities/{root['id']}"
    line = "Ada Lovelace: Fixed in &lt;b&gt;1.2&lt;/b&gt; &amp; &quot;shipped&quot;"
    assert sent.body["text"] == line
    assert message["replyToId"] == root["id"]
    assert message["body"] == {"contentType": "html", "content": line}
    assert message["from"]["user"]["displayName"] == "Ada Lovelace"
    assert message["from"]["user"]["id"] == desk.ada.user.source_id
    listed = await (await desk.comments(bug["_id"], **{"$count": "true"})).json()
    assert listed["@odata.count"] == 1
    assert listed["value"] == [message]
    _, [_, kept] = await desk.stored()
    assert kept.author_user_id == desk.ada.user.id


async def test_a_comment_teams_refuses_is_a_502_with_nothing_kept(desk: Desk) -> None:
    bug = await desk.bug()
    await desk.started(bug["_id"])
    before = await desk.stored()
    desk.connector.refusals.append((500, {}))
    response = await desk.comment(bug["_id"], {"content": "hello"})
    assert response.status == 502
    assert await desk.stored() == before
    assert (await desk.comment(bug["_id"], {"content": "hello"})).status == 201


async def test_the_discussion_pages_and_sorts_by_creation(desk: Desk) -> None:
    bug_id, root_id, ids = await _discussed_with_replies(desk, 5)
    everything = await (await desk.messages(bug_id)).json()
    assert everything["@odata.count"] == 6
    assert [m["id"] for m in everything["value"]] == [root_id, *ids]
    assert everything["@odata.context"].endswith("/odata/$metadata#messages")

    page = await (await desk.messages(bug_id, **{"$top": "2", "$skip": "1"})).json()
    assert [m["id"] for m in page["value"]] == ids[:2]
    assert page["@odata.count"] == 6
    assert "%24skip=3" in page["@odata.nextLink"] or "$skip=3" in page["@odata.nextLink"]

    newest = await (
        await desk.messages(bug_id, **{"$orderby": "createdDateTime desc", "$top": "3"})
    ).json()
    assert [m["id"] for m in newest["value"]] == ids[::-1][:3]

    replies = await (await desk.comments(bug_id, **{"$top": "2", "$skip": "4"})).json()
    assert [m["id"] for m in replies["value"]] == ids[4:]
    assert "@odata.count" not in replies
    assert all(m["replyToId"] == root_id for m in replies["value"])


@pytest.mark.parametrize(
    ("path", "params", "mentions"),
    [
        ("messages", {"$filter": "id eq '1'"}, "$filter"),
        ("messages", {"$select": "id"}, "$select"),
        ("messages", {"$orderby": "body"}, "$orderby"),
        ("messages", {"$orderby": "createdDateTime sideways"}, "$orderby"),
        ("messages", {"$top": "-1"}, "$top"),
        ("messages", {"$count": "true"}, "$count"),
        ("comments", {"$orderby": "createdDateTime"}, "$orderby"),
        ("comments", {"$skip": "x"}, "$skip"),
        ("comments", {"$count": "maybe"}, "$count"),
    ],
)
async def test_a_query_option_a_list_does_not_take_is_a_400_naming_it(
    desk: Desk, path: str, params: dict[str, str], mentions: str
) -> None:
    bug = await desk.bug()
    await desk.started(bug["_id"])
    response = await desk.client.get(
        f"/api/bugs/{bug['_id']}/{path}", params=params, headers=desk.ada.in_channel()
    )
    assert response.status == 400
    assert mentions in (await response.json())["error"]


@pytest.mark.parametrize(
    "body",
    [
        {"content": ""},
        {"content": "   "},
        {"content": 12},
        {"content": None},
        {},
        {"content": "x" * (MAX_COMMENT + 1)},
        {"content": ["a"]},
    ],
)
async def test_bad_comment_content_is_a_400_naming_the_field_and_posts_nothing(
    desk: Desk, body: dict[str, Any]
) -> None:
    bug = await desk.bug()
    await desk.started(bug["_id"])
    before = await desk.stored()
    response = await desk.comment(bug["_id"], body)
    assert response.status == 400
    assert "content" in (await response.json())["error"]
    assert desk.connector.calls == []
    assert await desk.stored() == before


async def test_a_comment_that_is_not_json_is_a_415(desk: Desk) -> None:
    bug = await desk.bug()
    await desk.started(bug["_id"])
    response = await desk.client.post(
        f"/api/bugs/{bug['_id']}/comments",
        data="content=hi",
        headers={**desk.ada.in_channel(), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status == 415
    assert desk.connector.calls == []


async def test_an_item_without_a_discussion_answers_404_that_says_so(desk: Desk) -> None:
    bug = await desk.bug()
    for response in (
        await desk.messages(bug["_id"]),
        await desk.comments(bug["_id"]),
        await desk.comment(bug["_id"], {"content": "hello"}),
    ):
        assert response.status == 404
        assert "no discussion yet" in (await response.json())["error"]
    assert desk.connector.calls == []
    assert await desk.stored() == ([], [])


async def test_a_task_id_or_no_item_at_all_is_a_404(desk: Desk) -> None:
    task = await desk.client.post(
        "/odata/tasks", json={"name": "A task"}, headers=desk.ada.in_channel()
    )
    task_id = (await task.json())["_id"]
    for item_id in (task_id, "0" * 24, "not-an-id"):
        assert (await desk.start(item_id)).status == 404
        assert (await desk.messages(item_id)).status == 404
        assert (await desk.comment(item_id, {"content": "x"})).status == 404
    assert desk.connector.calls == []
    assert await desk.stored() == ([], [])


async def test_another_teams_bug_is_a_404_in_its_own_channel_and_a_403_in_ours(
    desk: Desk,
) -> None:
    bug = await desk.bug()
    await desk.started(bug["_id"])
    before = await desk.stored()
    await desk.factory.team(TEAM_B, name="Team B")
    await desk.factory.channel(CHANNEL_B, team_id=TEAM_B, name="B")
    eve = await desk.factory.member("Eve", team_id=TEAM_B)
    for headers, status in ((eve.in_channel(TEAM_B, CHANNEL_B), 404), (eve.in_channel(), 403)):
        for method, path, body in (
            ("POST", "messages", None),
            ("GET", "messages", None),
            ("GET", "comments", None),
            ("POST", "comments", {"content": "x"}),
        ):
            response = await desk.client.request(
                method, f"/api/bugs/{bug['_id']}/{path}", json=body, headers=headers
            )
            assert response.status == status, (method, path)
            assert "error" in await response.json()
    assert desk.connector.calls == []
    assert await desk.stored() == before


async def test_no_session_is_a_401_and_changes_nothing(desk: Desk) -> None:
    bug = await desk.bug()
    context = {"x-svc-teamid": TEAM, "x-svc-channelId": CHANNEL}
    for method, path, body in (
        ("POST", "messages", None),
        ("GET", "messages", None),
        ("GET", "comments", None),
        ("POST", "comments", {"content": "x"}),
    ):
        response = await desk.client.request(
            method, f"/api/bugs/{bug['_id']}/{path}", json=body, headers=context
        )
        assert response.status == 401
        assert "error" in await response.json()
    assert desk.connector.calls == []
    assert await desk.stored() == ([], [])


async def test_the_bot_not_installed_in_the_channel_is_a_409(desk: Desk) -> None:
    bug = await desk.bug()
    async with desk.factory.work() as uow:
        await uow.session.execute(delete(ConversationReference))
    response = await desk.start(bug["_id"])
    assert response.status == 409
    assert "not installed" in (await response.json())["error"]
    assert desk.connector.calls == []
    assert await desk.stored() == ([], [])


async def test_a_private_channel_is_refused_as_every_route_refuses_it(desk: Desk) -> None:
    await desk.factory.channel(PRIVATE, name="Secret", membership=MembershipType.PRIVATE)
    headers = desk.ada.in_channel(TEAM, PRIVATE)
    response = await desk.client.post(f"/api/bugs/{'0' * 24}/messages", headers=headers)
    assert response.status == 403
    assert await response.json() == {"error": PRIVATE_CHANNELS_UNSUPPORTED}
    assert desk.connector.calls == []


async def test_deleting_the_bug_drops_its_discussion_but_grace_can_still_talk_in_teams(
    desk: Desk,
) -> None:
    bug_id, root_id, _ = await _discussed_with_replies(desk, 2)
    response = await desk.client.delete(f"/odata/bugs({bug_id})", headers=desk.ada.in_channel())
    assert response.status == 204
    assert (await desk.messages(bug_id)).status == 404
    await desk.teams(desk.reply(root_id, "still here", sender=GRACE))
    assert await desk.stored() == ([], [])

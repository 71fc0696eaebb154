"""The item page at PUBLIC_URL/bugs/<_id> and /tasks/<_id>: what it shows, and to whom."""

from datetime import timedelta

import pytest
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.db.tables import Item, ItemThread
from tests.factories import Factory, Member, create_item
from tests.pages.shown import shown

TEAM_B, CHANNEL_B = "19:team-b@thread.tacv2", "19:channel-b@thread.tacv2"
MARKUP = "<script>alert(1)</script><b>x</b>"


@pytest.fixture
async def ada(factory: Factory) -> Member:
    return await factory.member("Ada Lovelace")


async def test_the_page_shows_the_item_read_only(
    client: TestClient, factory: Factory, ada: Member, clock: FrozenClock
) -> None:
    grace = await factory.member("Grace Hopper")
    bug = await create_item(
        client,
        ada,
        name="Login fails on Safari",
        body="Open the app.\nSign in: a blank page.",
        priority="High",
        severity="Critical",
        dueDate="2026-12-01",
        assignedTo=[{"_id": grace.user.id}, {"_id": ada.user.id}],
    )
    clock.advance(timedelta(minutes=5))
    patch = await client.patch(
        f"/odata/bugs('{bug['_id']}')", json={"status": "In Progress"}, headers=grace.in_channel()
    )
    assert patch.status == 204
    response = await client.get(f"/bugs/{bug['_id']}", headers=ada.headers)
    assert response.status == 200
    assert response.content_type == "text/html"
    page = shown(await response.text())
    assert page.headings == ["Login fails on Safari"]
    assert "Bug #1 · Team A › Bugs" in page.text
    assert "Open the app. Sign in: a blank page." in page.text
    assert page.facts == {
        "Status": "In Progress",
        "Priority": "High",
        "Severity": "Critical",
        "Assigned to": "Grace Hopper, Ada Lovelace",
        "Due date": "1 Dec 2026",
        "Created": "21 Nov 2026, 09:30 UTC by Ada Lovelace",
        "Updated": "21 Nov 2026, 09:35 UTC by Grace Hopper",
    }
    assert page.links == {}  # no discussion yet
    assert "script" not in page.tags


async def test_a_task_with_nothing_set_says_so(
    client: TestClient, ada: Member, factory: Factory
) -> None:
    task = await create_item(client, ada, "task", name="Write the notes")
    page = shown(await (await client.get(f"/tasks/{task['_id']}", headers=ada.headers)).text())
    assert "No description." in page.text
    assert page.facts["Assigned to"] == "Nobody"
    assert page.facts["Due date"] == "No due date"
    assert "Severity" not in page.facts


async def test_a_discussed_item_links_to_its_thread_in_teams(
    client: TestClient, ada: Member, factory: Factory, clock: FrozenClock
) -> None:
    bug = await create_item(client, ada, name="Printing is slow")
    async with factory.work() as uow:  # the thread as it is once Teams has made it
        item = await uow.session.get(Item, bug["_id"])
        assert item is not None
        uow.add(
            ItemThread(
                item_id=item.id,
                channel_id=item.channel_id,
                conversation_id="19:channel-a@thread.tacv2;messageid=1700000000123",
                root_message_id="1700000000123",
                started_by=ada.user.id,
                started_at=clock.now(),
            )
        )
    page = shown(await (await client.get(f"/bugs/{bug['_id']}", headers=ada.headers)).text())
    link = page.links["Open the discussion in Teams"]
    assert link.startswith(
        "https://teams.microsoft.com/l/message/19:channel-a@thread.tacv2/1700000000123?"
    )
    assert "parentMessageId=1700000000123" in link and "channelName=Bugs" in link


async def test_markup_in_the_item_is_shown_as_text(
    client: TestClient, ada: Member, factory: Factory
) -> None:
    bug = await create_item(
        client, ada, name=MARKUP, body=f'"><img src=x onerror=alert(2)>{MARKUP}'
    )
    response = await client.get(f"/bugs/{bug['_id']}", headers=ada.headers)
    html = await response.text()
    assert "<script>alert" not in html and "<b>x" not in html and "<img" not in html
    page = shown(html)
    assert page.headings == [MARKUP]
    assert not {"script", "b", "img"} & page.tags
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy


async def test_without_a_session_the_page_says_how_to_sign_in(
    client: TestClient, ada: Member, factory: Factory
) -> None:
    bug = await create_item(client, ada, name="Login fails on Safari")
    signed_out = await client.delete("/api/auth/session", headers=ada.headers)
    assert signed_out.status == 204
    for headers in ({}, ada.headers, {"Cookie": "graphNodeCookie=made-up"}):
        response = await client.get(f"/bugs/{bug['_id']}", headers=headers)
        assert response.status == 401
        page = shown(await response.text())
        assert page.headings == ["Sign in to see this bug"]
        assert "graphNodeCookie" in page.text and "admin session create" in page.text
        assert "Login fails" not in page.text


async def test_an_api_token_opens_the_page_too(
    client: TestClient, ada: Member, factory: Factory
) -> None:
    bug = await create_item(client, ada, name="Login fails on Safari")
    token = await factory.api_token(ada.user)
    response = await client.get(f"/bugs/{bug['_id']}", headers={"Authorization": f"Bearer {token}"})
    assert response.status == 200


async def test_unknown_malformed_foreign_and_mistyped_ids_all_answer_the_same_404(
    client: TestClient, ada: Member, factory: Factory
) -> None:
    bug = await create_item(client, ada, name="Login fails on Safari")
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B, name="Secret")
    bob = await factory.member("Bob", team_id=TEAM_B)
    response = await client.post(
        "/odata/bugs", json={"name": "Merger plans leak"}, headers=bob.in_channel(TEAM_B, CHANNEL_B)
    )
    foreign = (await response.json())["_id"]
    assert (await client.get(f"/bugs/{foreign}", headers=bob.headers)).status == 200
    pages = []
    for path in (
        "/bugs/ffffffffffffffffffffffff",  # no such item
        "/bugs/not-an-id",
        f"/bugs/{foreign}",  # Team B's: Ada is no member
        f"/tasks/{bug['_id']}",  # a bug, named as a task
    ):
        response = await client.get(path, headers=ada.headers)
        assert response.status == 404, path
        assert response.content_type == "text/html"
        pages.append(await response.text())
    assert len(set(pages)) == 1
    assert "Merger" not in pages[0]
    assert shown(pages[0]).headings == ["Nothing here"]


async def test_the_page_is_not_part_of_the_json_api_docs(client: TestClient) -> None:
    document = await (await client.get("/openapi.json")).json()
    assert not [path for path in document["paths"] if path.startswith(("/bugs", "/tasks"))]

"""A discussed bug's thread stays current: its root card updated in place, one reply per burst."""

from datetime import timedelta

from sqlalchemy import func, select

from bot.db.tables import Job, ThreadLine, ThreadRefresh
from bot.discussions.refresh_job import REFRESH
from tests.cards.samples import root_title
from tests.discussions.head.threads import WINDOW, Rig, facts, messages

SOON = timedelta(milliseconds=100)


async def test_a_lone_change_updates_the_root_card_and_replies_with_one_line(rig: Rig) -> None:
    bug, thread = await rig.discussed_bug(name="Printer on fire")
    root = thread.partition(";messageid=")[2]

    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    assert rig.connector.calls == []  # the window is still open

    await rig.turn(WINDOW)
    [update] = rig.updates()
    assert update.path == f"/v3/conversations/{thread}/activities/{root}"
    [attachment] = update.body["attachments"]
    assert facts(attachment["content"])["Status"] == "In Progress"
    [reply] = rig.replies()
    assert reply.path == f"/v3/conversations/{thread}/activities/{root}"
    assert reply.body["text"] == "Ada Lovelace moved it to In Progress"

    stored_root, stored_reply = await messages(rig.factory, bug["_id"])
    # The API describes the root in the seed's connector-card shape, updated with it.
    described = stored_root.card
    assert described["title"] == root_title(attachment["content"]) == "Bug #1: Printer on fire"
    assert {f["name"]: f["value"] for f in described["sections"][0]["facts"]}["Status"] == (
        "In Progress"
    )
    assert stored_root.modified_at == rig.factory.clock.now()
    assert (stored_reply.reply_to_id, stored_reply.author_kind, stored_reply.body) == (
        root,
        "application",
        "Ada Lovelace moved it to In Progress",
    )


async def test_ten_edits_in_a_burst_make_one_update_and_one_reply_naming_them(rig: Rig) -> None:
    bug, _ = await rig.discussed_bug(priority="Normal", dueDate="2026-12-01T00:00:00Z")
    edits = [
        {"status": "In Progress"},
        {"priority": "High"},
        {"dueDate": "2026-12-03T00:00:00Z"},
        {"assignedTo": [rig.grace.user.id]},
        {"name": "Printer on fire"},
        {"dueDate": "2026-12-05T00:00:00Z"},
        {"priority": "Low"},
        {"assignedTo": [rig.grace.user.id, rig.lin.user.id]},
        {"severity": "Critical"},
        {"status": "Completed"},
    ]
    for n, edit in enumerate(edits):
        await rig.patch(rig.grace if n == 3 else rig.ada, bug["_id"], **edit)
        await rig.turn(SOON)  # the pump hands each change over as it comes

    await rig.turn(WINDOW)
    [update] = rig.updates()
    shown = facts(update.body["attachments"][0]["content"])
    assert (shown["Status"], shown["Priority"], shown["Due"]) == ("Completed", "Low", "2026-12-05")
    [reply] = rig.replies()
    assert reply.body["text"] == (
        "Ada Lovelace moved it to Completed; assigned it to Grace Hopper and Lin Chen; "
        "renamed it “Printer on fire”; priority Normal → Low; "
        "due date 1 Dec → 5 Dec; severity Medium → Critical"
    )
    await rig.turn(WINDOW)
    assert (len(rig.updates()), len(rig.replies())) == (1, 1)


async def test_a_discussed_task_stays_current_as_a_bug_does(rig: Rig) -> None:
    task, _ = await rig.discussed_bug("task", name="Write the notes")
    await rig.patch(rig.ada, task["_id"], "task", assignedTo=[rig.lin.user.id])
    await rig.turn()
    await rig.turn(WINDOW)
    [update] = rig.updates()
    card = update.body["attachments"][0]["content"]
    assert root_title(card).startswith("Task #")
    assert facts(card)["Assigned to"] == "Lin Chen"
    assert [call.body["text"] for call in rig.replies()] == ["Ada Lovelace assigned it to Lin Chen"]


async def test_changes_by_several_people_are_one_line_naming_each(rig: Rig) -> None:
    bug, _ = await rig.discussed_bug()
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    rig.factory.clock.advance(SOON)
    await rig.patch(rig.grace, bug["_id"], assignedTo=[rig.lin.user.id])
    await rig.turn()
    await rig.turn(WINDOW)
    [reply] = rig.replies()
    assert reply.body["text"] == (
        "Ada Lovelace moved it to In Progress. Grace Hopper assigned it to Lin Chen"
    )


async def test_a_burst_that_ends_where_it_began_sends_nothing(rig: Rig) -> None:
    bug, _ = await rig.discussed_bug(priority="Normal")
    await rig.patch(rig.ada, bug["_id"], priority="High")
    rig.factory.clock.advance(SOON)
    await rig.patch(rig.ada, bug["_id"], priority="Normal")
    await rig.turn()
    await rig.turn(WINDOW)
    assert rig.connector.calls == []
    assert await open_refreshes(rig) == 0


async def test_a_bulk_edit_of_discussed_bugs_refreshes_each_once(rig: Rig) -> None:
    discussed = [await rig.discussed_bug(name=f"Bug {n}") for n in range(3)]
    quiet = await rig.bug(name="Not discussed")
    ids = [bug["_id"] for bug, _ in discussed] + [quiet["_id"]]
    response = await rig.bot.post(
        "/api/bulk/bug", json={"ids": ids, "status": "In Progress"}, headers=rig.ada.in_channel()
    )
    assert response.status == 200, await response.text()

    await rig.turn()
    await rig.turn(WINDOW)
    threads = sorted(thread for _, thread in discussed)
    assert sorted(call.path.split("/")[3] for call in rig.updates()) == threads
    assert sorted(call.path.split("/")[3] for call in rig.replies()) == threads
    assert {call.body["text"] for call in rig.replies()} == {"Ada Lovelace moved it to In Progress"}


async def test_changes_to_an_undiscussed_bug_send_nothing_and_queue_nothing(rig: Rig) -> None:
    bug = await rig.bug()
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    await rig.turn(WINDOW)
    assert rig.connector.calls == []
    assert await refresh_jobs(rig) == 0


async def test_a_bug_deleted_in_the_window_shows_its_card_marked_deleted_and_says_who(
    rig: Rig,
) -> None:
    bug, thread = await rig.discussed_bug(name="Printer on fire")
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    await rig.delete(rig.grace, bug["_id"])
    await rig.turn(SOON)

    await rig.turn(WINDOW)
    [update] = rig.updates()
    card = update.body["attachments"][0]["content"]
    assert root_title(card).endswith("Printer on fire (deleted)")
    assert card.get("actions", []) == []
    assert facts(card)["Status"] == "Not Started"  # its last card, as the thread showed it
    [reply] = rig.replies()
    assert reply.body["text"] == "Grace Hopper deleted it"
    assert await open_refreshes(rig) == 0
    async with rig.factory.work(write=False) as uow:
        assert await uow.value(select(func.count()).select_from(ThreadLine)) == 0


async def test_a_discussed_bug_deleted_outside_a_burst_is_marked_deleted(rig: Rig) -> None:
    bug, _ = await rig.discussed_bug(name="Printer on fire")
    await rig.delete(rig.ada, bug["_id"])
    await rig.turn()
    await rig.turn(WINDOW)
    [update] = rig.updates()
    assert root_title(update.body["attachments"][0]["content"]).endswith("(deleted)")
    assert [call.body["text"] for call in rig.replies()] == ["Ada Lovelace deleted it"]


async def test_a_change_after_a_refresh_opens_the_next_burst(rig: Rig) -> None:
    bug, _ = await rig.discussed_bug()
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    await rig.turn(WINDOW)
    await rig.patch(rig.ada, bug["_id"], status="Completed")
    await rig.turn()
    await rig.turn(WINDOW)
    assert [call.body["text"] for call in rig.replies()] == [
        "Ada Lovelace moved it to In Progress",
        "Ada Lovelace moved it to Completed",
    ]
    assert len(rig.updates()) == 2
    assert len(await messages(rig.factory, bug["_id"])) == 3


async def open_refreshes(rig: Rig) -> int:
    async with rig.factory.work(write=False) as uow:
        return int(await uow.value(select(func.count()).select_from(ThreadRefresh)))


async def refresh_jobs(rig: Rig) -> int:
    async with rig.factory.work(write=False) as uow:
        return int(await uow.value(select(func.count()).where(Job.kind == REFRESH.name)))

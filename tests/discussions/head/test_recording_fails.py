"""A reply Teams took is never posted again because recording it failed: the refresh marks what
was posted before it records it, and a retry records that mark instead of posting again."""

from datetime import timedelta

from sqlalchemy import text

from tests.discussions.head.threads import WINDOW, Rig, messages
from tests.notifications.rules import log_of, notify_on

_FAIL_RECORDING = {
    "sqlite": [
        "CREATE TRIGGER refuse_record BEFORE INSERT ON discussion_messages "
        "BEGIN SELECT RAISE(ABORT, 'the record failed'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION refuse_record() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'the record failed'; END $$",
        "CREATE TRIGGER refuse_record BEFORE INSERT ON discussion_messages "
        "FOR EACH ROW EXECUTE FUNCTION refuse_record()",
    ],
}
_LET_RECORD = {
    "sqlite": ["DROP TRIGGER refuse_record"],
    "postgresql": [
        "DROP TRIGGER refuse_record ON discussion_messages",
        "DROP FUNCTION refuse_record()",
    ],
}


async def _run(rig: Rig, statements: dict[str, list[str]]) -> None:
    async with rig.factory.work() as uow:
        for statement in statements[uow.session.bind.dialect.name]:
            await uow.session.execute(text(statement))


def told(rig: Rig) -> list[str]:
    return [call.body["text"] for call in rig.replies()]


async def test_a_reply_teams_took_is_not_posted_again_when_recording_it_failed(rig: Rig) -> None:
    rule = await notify_on(rig.bot, rig.ada)
    bug, _ = await rig.discussed_bug()
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    await _run(rig, _FAIL_RECORDING)
    try:
        await rig.turn(WINDOW)
    finally:  # the database outlives the test
        await _run(rig, _LET_RECORD)
    assert told(rig) == ["Ada Lovelace moved it to In Progress"]  # posted; its record failed
    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "pending"

    await rig.patch(rig.grace, bug["_id"], priority="High")  # arrives before the retry
    for _ in range(4):
        await rig.turn(timedelta(minutes=1))

    assert told(rig) == [
        "Ada Lovelace moved it to In Progress",  # once
        "Grace Hopper changed priority Normal → High",
    ]
    stored = await messages(rig.factory, bug["_id"])
    assert [message.body for message in stored[1:]] == told(rig)
    states = [delivery["state"] for delivery in await log_of(rig.bot, rig.ada, rule)]
    assert states == ["succeeded", "succeeded"]

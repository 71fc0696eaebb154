"""The chat grammar: every form users type, case and spacing as Teams delivers them, and typos."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.schemas import ItemKind
from bot.teams.commands.command_list import COMMANDS
from bot.teams.commands.grammar import (
    Assign,
    ChannelSettings,
    Clone,
    Close,
    Create,
    Help,
    ListItems,
    Me,
    Mention,
    Message,
    Notify,
    Rules,
    SetPriority,
    SetStatus,
    ShowItem,
    Sync,
    Unassign,
    Unknown,
    parse,
    strip_mentions,
)

BUG, TASK = ItemKind.BUG, ItemKind.TASK
BOT = "28:bot-app-id"
ADA = Mention("29:ada", "00000000-0000-0000-0000-0000000000a1", "Ada Lovelace", "<at>Ada</at>")


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("help", Help()),
        ("HELP", Help()),
        ("?", Help()),
        ("/help", Help()),
        ("bugs", ListItems(BUG)),
        ("Bugs/", ListItems(BUG)),
        ("bugs/my", ListItems(BUG, mine=True)),
        ("BUGS/MY", ListItems(BUG, mine=True)),
        ("bugs/name/Login Page", ListItems(BUG, name="Login Page")),
        ("bugs/name/a/b", ListItems(BUG, name="a/b")),
        ("bugs/status/in-progress", ListItems(BUG, status="in progress")),
        ("bugs/status/In Progress", ListItems(BUG, status="In Progress")),
        ("bugs/priority/high", ListItems(BUG, priority="high")),
        ("bugs/assigned/ada@contoso.com", ListItems(BUG, assignee="ada@contoso.com")),
        ("bugs/assigned/me", ListItems(BUG, mine=True)),
        ("bug/12", ShowItem(BUG, 12)),
        ("bug/#12", ShowItem(BUG, 12)),
        ("bug/update/12/status/in-progress", SetStatus(BUG, 12, "in progress")),
        ("Bug/Update/12/Status/Done", SetStatus(BUG, 12, "Done")),
        ("bug/update/12/priority/very-high", SetPriority(BUG, 12, "very high")),
        ("bug/update/12/assigned/Ada@Contoso.com", Assign(BUG, 12, "Ada@Contoso.com", only=True)),
        ("bug/update/12/assigned/me", Assign(BUG, 12, Me(), only=True)),
        ("bug/clone/12", Clone(BUG, 12)),
        ("tasks", ListItems(TASK)),
        ("help all", Help(full=True)),
        ("Help More", Help(full=True)),
        ("open bugs", ListItems(BUG, open=True)),
        ("bugs/open", ListItems(BUG, open=True)),
        ("Open Tasks", ListItems(TASK, open=True)),
        ("assign bug 12 to Grace Hopper", Assign(BUG, 12, "Grace Hopper")),
        ("bug/update/12/assigned/grace", Assign(BUG, 12, "grace", only=True)),
        ("tasks/my", ListItems(TASK, mine=True)),
        ("tasks/name/deploy", ListItems(TASK, name="deploy")),
        ("tasks/status/not-started", ListItems(TASK, status="not started")),
        ("tasks/priority/low", ListItems(TASK, priority="low")),
        ("tasks/assigned/grace@contoso.com", ListItems(TASK, assignee="grace@contoso.com")),
        ("task/7", ShowItem(TASK, 7)),
        ("task/update/7/status/completed", SetStatus(TASK, 7, "completed")),
        ("task/update/7/priority/urgent", SetPriority(TASK, 7, "urgent")),
        ("task/update/7/assigned/grace@contoso.com", Assign(TASK, 7, "grace@contoso.com", True)),
        ("task/clone/7", Clone(TASK, 7)),
        ('new bug Login fails on "Safari"', Create(BUG, 'Login fails on "Safari"')),
        ("NEW BUG Ünïcödé ✓ 🐞", Create(BUG, "Ünïcödé ✓ 🐞")),
        ("new bug", Create(BUG)),
        ("new task Write the release notes", Create(TASK, "Write the release notes")),
        ("new task", Create(TASK)),
        ("my bugs", ListItems(BUG, mine=True)),
        ("My Tasks", ListItems(TASK, mine=True)),
        ("bug 12", ShowItem(BUG, 12)),
        ("bug #12", ShowItem(BUG, 12)),
        ("task 3", ShowItem(TASK, 3)),
        ("close bug 12", Close(BUG, 12)),
        ("Close Task 3", Close(TASK, 3)),
        ("assign bug 12 to me", Assign(BUG, 12, Me())),
        ("assign task 3 to grace@contoso.com", Assign(TASK, 3, "grace@contoso.com")),
        ("unassign bug 12 from Grace Hopper", Unassign(BUG, 12, "Grace Hopper")),
        ("Unassign Bug #12 From me", Unassign(BUG, 12, Me())),
        ("unassign task 3 from grace@contoso.com", Unassign(TASK, 3, "grace@contoso.com")),
        ("unassign task 3 from @Grace", Unassign(TASK, 3, "Grace")),
        ("  bugs/my \n", ListItems(BUG, mine=True)),
        ("bugs/my\xa0", ListItems(BUG, mine=True)),
        ("rules", Rules()),
        ("RULES", Rules()),
        ("/rules ", Rules()),
        ("notify", Notify()),
        ("notify on", Notify(True)),
        ("Notify OFF", Notify(False)),
        ("notify maybe", Notify(word="maybe")),
        ("notify on please", Notify(word="on please")),
        ("settings", ChannelSettings()),
        ("Settings", ChannelSettings()),
    ],
)
def test_parses_every_form(text: str, command: object) -> None:
    assert parse(text) == command


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("bgus/my", "bugs/my"),
        ("hepl", "help"),
        ("taks", "tasks"),
        ("mi bugs", "my bugs"),
        ("my bgus", "my bugs"),
        ("new bgu Login fails", "new bug Login fails"),
        ("bug/updte/12/status/done", "bug/update/12/status/done"),
        ("tasks/stauts/done", "tasks/status/done"),
        ("rulse", "rules"),
        ("notfy off", "notify off"),
        ("setings", "settings"),
        ("opne bugs", "open bugs"),
        ("help al", "help all"),
        ("asign bug 4 to Grace", "assign bug 4 to Grace"),
        ("unasign bug 4 from Grace", "unassign bug 4 from Grace"),
        ("unassign bug 4 form me", "unassign bug 4 from me"),
        ("unassing tsak 4 frm Grace Hopper", "unassign task 4 from Grace Hopper"),
        ("snyc", "sync"),
        ("sycn Fabrikam Web nwo", "sync Fabrikam Web nwo"),
    ],
)
def test_a_typo_is_unknown_with_the_command_it_resembles(text: str, suggestion: str) -> None:
    assert parse(text) == Unknown(text, suggestion)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "what is the weather",
        "bug/abc",
        "bug/0",
        "bug 99999999999",
        "bug/2147483648",
        "bugs/name/",
        "bugs/status/",
        "bugs/colour/red",
        "bug/update/12/status/",
        "bug/update/x/status/done",
        "bug/update/12/colour/red",
        "bug/clone/",
        "close bug",
        "close bug twelve",
        "assign bug 12",
        "assign bug 12 to",
        "assign bug 12 from Grace",
        "unassign bug 12",
        "unassign bug 12 from",
        "unassign bug 12 to Grace",
        "unassign bug twelve from Grace",
        "bugs/my/extra",
        "features",
        "rules/all",
        "rules 2",
    ],
)
def test_malformed_commands_are_unknown(text: str) -> None:
    assert isinstance(parse(text), Unknown)


def test_largest_database_id_still_parses() -> None:
    assert parse("bug/2147483647") == ShowItem(BUG, 2147483647)


def test_mentioned_person_is_resolved_in_assign() -> None:
    assert parse("assign bug 12 to <at>Ada</at>", [ADA]) == Assign(BUG, 12, ADA)
    assert parse("assign bug 12 to @Ada Lovelace", [ADA]) == Assign(BUG, 12, ADA)
    assert parse("bug/update/12/assigned/<at>Ada</at>", [ADA]) == Assign(BUG, 12, ADA, True)
    assert parse("unassign bug 12 from <at>Ada</at>", [ADA]) == Unassign(BUG, 12, ADA)
    assert parse("unassign bug 12 from @Ada Lovelace", [ADA]) == Unassign(BUG, 12, ADA)
    assert parse("bugs/assigned/<at>Ada</at>", [ADA]) == ListItems(BUG, assignee=ADA)


def test_unmatched_at_name_is_kept_as_typed() -> None:
    assert parse("assign bug 12 to @grace@contoso.com") == Assign(BUG, 12, "grace@contoso.com")


def test_strip_mentions_removes_the_bot_and_keeps_people() -> None:
    entities = [
        {
            "type": "mention",
            "mentioned": {"id": BOT, "name": "Tracker"},
            "text": "<at>Tracker</at>",
        },
        {
            "type": "mention",
            "mentioned": {"id": "29:ada", "name": "Ada Lovelace", "aadObjectId": ADA.aad_object_id},
            "text": "<at>Ada</at>",
        },
        {"type": "clientInfo", "locale": "en-GB"},
    ]
    message = strip_mentions("<at>Tracker</at> assign bug 12 to <at>Ada</at>", entities, bot_id=BOT)
    assert message == Message("assign bug 12 to <at>Ada</at>", (ADA,))
    assert parse(message.text, message.mentions) == Assign(BUG, 12, ADA)


def test_strip_mentions_of_a_channel_post() -> None:
    entities = [
        {"type": "mention", "mentioned": {"id": BOT, "name": "Bot"}, "text": "<at>Bot</at>"}
    ]
    message = strip_mentions("<at>Bot</at> bugs/my", entities, bot_id=BOT)
    assert parse(message.text) == ListItems(BUG, mine=True)


def test_strip_mentions_tolerates_missing_and_odd_entities() -> None:
    assert strip_mentions(None, None, bot_id=BOT) == Message("")
    odd = [{"type": "mention"}, {"type": "mention", "mentioned": "x"}, {}]
    assert strip_mentions("bugs", odd, bot_id=BOT) == Message("bugs")


def test_every_help_shortcut_runs_as_written() -> None:
    shortcuts = [entry for entry in COMMANDS if entry.shortcut]
    assert shortcuts
    for entry in shortcuts:
        assert not isinstance(parse(entry.command), Unknown), entry.command


@given(st.text())
def test_parse_never_raises(text: str) -> None:
    assert parse(text) is not None


@given(st.text(), st.lists(st.dictionaries(st.text(), st.text() | st.integers())))
def test_strip_mentions_never_raises(text: str, entities: list[dict]) -> None:
    message = strip_mentions(text, entities, bot_id=BOT)
    assert parse(message.text, message.mentions) is not None


@given(st.sampled_from(["bugs/name/", "new bug ", "bugs/assigned/"]), st.text(min_size=1))
def test_values_come_back_as_typed(prefix: str, value: str) -> None:
    command = parse(prefix + value)
    cleaned = " ".join(value.replace("\xa0", " ").split())
    if isinstance(command, ListItems) and command.name is not None:
        assert command.name == cleaned.rstrip("/").strip()
    if isinstance(command, Create) and command.title is not None:
        assert command.title == cleaned


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("sync", Sync()),
        ("SYNC", Sync()),
        ("sync Fabrikam", Sync("Fabrikam")),
        ("sync Fabrikam Web NOW", Sync("Fabrikam Web", now=True)),
        ("sync now", Sync(None, now=True)),
        ("sync  *Contoso*  ", Sync("*Contoso*")),
    ],
)
def test_sync_names_a_project_as_typed_and_now_starts_it(text: str, command: Sync) -> None:
    assert parse(text) == command

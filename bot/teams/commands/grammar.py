"""The chat command grammar: text (the bot's @mention removed) to a Command. Pure: no I/O.

Keywords compare without case; values (titles, names, UPNs) keep what the user typed.
"""

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.schemas import ItemKind

MAX_INTERNAL_ID = 2**31 - 1  # the database's integer: a larger number names no item
_AT_TAG = re.compile(r"</?at>", re.IGNORECASE)
_NUMBER = re.compile(r"#?([0-9]{1,10})")
# A typo is looked for near the start of the text only, and not in a long text at all.
_SUGGEST_WORDS = 4
_VALUE_AFTER = ("name", "status", "priority", "assigned", "to", "from", "sync")
_SUGGEST_MAX_CHARS = 200


@dataclass(frozen=True)
class Mention:
    """A person @mentioned in the message, as Teams names them."""

    teams_id: str  # "29:…"
    aad_object_id: str | None
    name: str
    text: str  # as it stands in the message: "<at>Ada Lovelace</at>"


@dataclass(frozen=True)
class Message:
    """A message with the bot's own mentions removed, and the other people it mentions."""

    text: str
    mentions: tuple[Mention, ...] = ()


@dataclass(frozen=True)
class Me:
    """The person who sent the command."""


Assignee = str | Mention | Me  # str: a user principal name as typed


@dataclass(frozen=True)
class Help:
    """`help`: the everyday commands; `help all`: every one."""

    full: bool = False


@dataclass(frozen=True)
class ListItems:
    """`bugs`, `bugs/my`, `bugs/open`, `bugs/name/…`, `bugs/status/…`, `bugs/priority/…`,
    `bugs/assigned/…`."""

    kind: ItemKind
    mine: bool = False
    open: bool = False  # not done yet
    name: str | None = None  # text the title contains
    status: str | None = None  # hyphens read as spaces: match case-insensitively
    priority: str | None = None
    assignee: str | Mention | None = None


@dataclass(frozen=True)
class ShowItem:
    kind: ItemKind
    internal_id: int


@dataclass(frozen=True)
class SetStatus:
    kind: ItemKind
    internal_id: int
    status: str


@dataclass(frozen=True)
class SetPriority:
    kind: ItemKind
    internal_id: int
    priority: str


@dataclass(frozen=True)
class Assign:
    """`assign bug 4 to Grace` adds Grace to the assignees, keeping the others; the path form
    `bug/update/4/assigned/Grace` sets the field, as `…/status/…` does: Grace alone (`only`)."""

    kind: ItemKind
    internal_id: int
    assignee: Assignee
    only: bool = False


@dataclass(frozen=True)
class Unassign:
    """`unassign bug 4 from Grace`: Grace taken off the assignees, the others kept."""

    kind: ItemKind
    internal_id: int
    assignee: Assignee


@dataclass(frozen=True)
class Close:
    """Move to the kind's first Done status."""

    kind: ItemKind
    internal_id: int


@dataclass(frozen=True)
class Clone:
    kind: ItemKind
    internal_id: int


@dataclass(frozen=True)
class Delete:
    """`delete bug 9`: a card asking to confirm; its Delete button deletes the item for good."""

    kind: ItemKind
    internal_id: int


@dataclass(frozen=True)
class NewRule:
    """`new rule`, `create rule`, `add rule`: rules are not made in chat; the answer says where."""


@dataclass(frozen=True)
class Discuss:
    """Start the item's discussion thread, or show the one it has."""

    kind: ItemKind
    internal_id: int


@dataclass(frozen=True)
class Create:
    """`new bug <title>` creates at once; `new bug` alone (title None) opens the form."""

    kind: ItemKind
    title: str | None = None


@dataclass(frozen=True)
class Rules:
    """The channel's event rules and how each last fired."""


@dataclass(frozen=True)
class Notify:
    """`notify` (the setting), `notify on`, `notify off`: personal notifications, in the 1:1
    chat; `word` holds anything else typed after `notify`, answered with how to say it."""

    on: bool | None = None
    word: str | None = None


@dataclass(frozen=True)
class ChannelSettings:
    """The channel's notification rules, to switch, and its noise settings, to change."""


@dataclass(frozen=True)
class Sync:
    """`sync`: the channel's synced projects; `sync <project>`: one; `… now`: pull it now
    (`sync now`: the channel's one synced project)."""

    project: str | None = None
    now: bool = False


@dataclass(frozen=True)
class Unknown:
    text: str
    suggestion: str | None = None


Command = (
    Help
    | ListItems
    | ShowItem
    | SetStatus
    | SetPriority
    | Assign
    | Unassign
    | Close
    | Clone
    | Delete
    | NewRule
    | Discuss
    | Create
    | Rules
    | Notify
    | ChannelSettings
    | Sync
    | Unknown
)

HELP_ALL = "help all"  # every command, where `help` shows the everyday ones

_KINDS = {"bug": ItemKind.BUG, "task": ItemKind.TASK}
_PLURALS = {"bugs": ItemKind.BUG, "tasks": ItemKind.TASK}
_SWITCHES = {"on": True, "off": False}
_ASSIGNING = (("assign", "to"), ("unassign", "from"))
# `close bug 12`: a verb, a kind and a number.
_ON_ONE_ITEM: dict[str, type[Close | Discuss | Delete]] = {
    "close": Close,
    "discuss": Discuss,
    "delete": Delete,
}
_CREATING = ("new", "create", "add")
_KEYWORDS = (
    "help bugs bug tasks task my name status priority assigned update clone new close assign to "
    "rules discuss notify settings open all unassign from delete sync now"
).split()
_FULL_HELP = ("all", "more")
# Complete commands a typo is compared with when no keyword-wise correction parses.
_EXAMPLES = tuple(
    form.format(kind=kind)
    for kind in ("bug", "task")
    for form in ("{kind}s", "{kind}s/my", "my {kind}s", "open {kind}s", "new {kind}")
) + ("help", HELP_ALL, "rules", "settings", "sync")


def strip_mentions(
    text: str | None, entities: Iterable[Mapping[str, Any]] | None, *, bot_id: str | None
) -> Message:
    """Remove the @mentions of the bot (`bot_id`, the activity's recipient id); keep the people
    mentioned, whose `<at>` text stays in the text for `parse` to resolve."""
    remaining = text or ""
    people: list[Mention] = []
    for entity in entities or ():
        if entity.get("type") != "mention" or not isinstance(entity.get("mentioned"), Mapping):
            continue
        mentioned = entity["mentioned"]
        tag = str(entity.get("text") or "")
        if bot_id is not None and mentioned.get("id") == bot_id:
            remaining = remaining.replace(tag, " ") if tag else remaining
            continue
        people.append(
            Mention(
                teams_id=str(mentioned.get("id") or ""),
                aad_object_id=mentioned.get("aadObjectId"),
                name=str(mentioned.get("name") or _AT_TAG.sub("", tag)),
                text=tag,
            )
        )
    return Message(text=" ".join(remaining.split()), mentions=tuple(people))


def parse(text: str, mentions: Sequence[Mention] = ()) -> Command:
    """The command the text asks for; never raises."""
    said = " ".join(text.replace("\xa0", " ").split()).removeprefix("/").strip()
    command = _parse(said, mentions)
    if command is not None:
        return command
    return Unknown(text=said, suggestion=_suggest(said, mentions))


def normalise_words(value: str) -> str:
    """A status or priority as typed, `in-progress`, read as `in progress`."""
    return " ".join(value.replace("-", " ").split())


def _parse(said: str, mentions: Sequence[Mention]) -> Command | None:
    if not said:
        return None
    if "/" in said.split(" ", 1)[0] or said.casefold() in _PLURALS:
        return _parse_path(said, mentions)
    return _parse_words(said, mentions)


def _parse_path(said: str, mentions: Sequence[Mention]) -> Command | None:
    """The command grammar: `bugs/…` lists, `bug/…` acts on one item."""
    head, _, rest = said.partition("/")
    head = head.strip().casefold()
    rest = rest.strip().rstrip("/").strip()
    if head in _PLURALS:
        return _parse_list(_PLURALS[head], rest, mentions)
    if head in _KINDS:
        return _parse_item(_KINDS[head], rest, mentions)
    if head == "help" and not rest:
        return Help()
    return None


def _parse_list(kind: ItemKind, rest: str, mentions: Sequence[Mention]) -> Command | None:
    if not rest:
        return ListItems(kind)
    field, _, value = rest.partition("/")
    field, value = field.strip().casefold(), value.strip()
    if field == "my" and not value:
        return ListItems(kind, mine=True)
    if field == "open" and not value:
        return ListItems(kind, open=True)
    if not value:
        return None
    if field == "name":
        return ListItems(kind, name=value)
    if field == "status":
        return ListItems(kind, status=normalise_words(value))
    if field == "priority":
        return ListItems(kind, priority=normalise_words(value))
    if field == "assigned":
        assignee = _assignee(value, mentions)
        if isinstance(assignee, Me):
            return ListItems(kind, mine=True)
        return ListItems(kind, assignee=assignee)
    return None


def _parse_item(kind: ItemKind, rest: str, mentions: Sequence[Mention]) -> Command | None:
    parts = [part.strip() for part in rest.split("/", 4)]
    action = parts[0].casefold()
    if len(parts) == 1:
        number = _internal_id(parts[0])
        return ShowItem(kind, number) if number is not None else None
    if action == "clone" and len(parts) == 2:
        number = _internal_id(parts[1])
        return Clone(kind, number) if number is not None else None
    if len(parts) == 2 and parts[1].casefold() == "discuss":
        number = _internal_id(parts[0])
        return Discuss(kind, number) if number is not None else None
    if action != "update" or len(parts) < 4:
        return None
    number, field = _internal_id(parts[1]), parts[2].casefold()
    value = "/".join(parts[3:]).strip()
    if number is None or not value:
        return None
    if field == "status":
        return SetStatus(kind, number, normalise_words(value))
    if field == "priority":
        return SetPriority(kind, number, normalise_words(value))
    if field == "assigned":
        return Assign(kind, number, _assignee(value, mentions), only=True)
    return None


def _parse_words(said: str, mentions: Sequence[Mention]) -> Command | None:
    """The natural forms: help, my bugs, bug 12, new bug <title>, close bug 12, delete bug 12,
    assign … to …, unassign … from …."""
    words = said.split(" ")
    lowered = [word.casefold() for word in words]
    if lowered == ["help"] or lowered == ["?"]:
        return Help()
    if len(words) == 2 and lowered[0] == "help" and lowered[1] in _FULL_HELP:
        return Help(full=True)
    if lowered == ["rules"]:
        return Rules()
    if lowered[0] == "notify":
        word = " ".join(words[1:])
        switch = _SWITCHES.get(word.casefold())
        return Notify(switch) if switch is not None or not word else Notify(word=word)
    if lowered == ["settings"]:
        return ChannelSettings()
    if lowered[0] == "sync":
        now = len(words) > 1 and lowered[-1] == "now"
        project = " ".join(words[1 : -1 if now else None])
        return Sync(project or None, now=now)
    if len(words) == 2 and lowered[0] == "my" and lowered[1] in _PLURALS:
        return ListItems(_PLURALS[lowered[1]], mine=True)
    if len(words) == 2 and lowered[0] == "open" and lowered[1] in _PLURALS:
        return ListItems(_PLURALS[lowered[1]], open=True)
    if len(words) == 2 and lowered[0] in _KINDS:
        number = _internal_id(words[1])
        return ShowItem(_KINDS[lowered[0]], number) if number is not None else None
    if len(words) >= 2 and lowered[0] == "new" and lowered[1] in _KINDS:
        title = " ".join(words[2:]).strip()
        return Create(_KINDS[lowered[1]], title or None)
    if len(words) == 2 and lowered[0] in _CREATING and lowered[1] in ("rule", "rules"):
        return NewRule()
    if len(words) == 3 and lowered[0] in _ON_ONE_ITEM and lowered[1] in _KINDS:
        number = _internal_id(words[2])
        command = _ON_ONE_ITEM[lowered[0]]
        return command(_KINDS[lowered[1]], number) if number is not None else None
    if len(words) >= 5 and lowered[1] in _KINDS and (lowered[0], lowered[3]) in _ASSIGNING:
        number = _internal_id(words[2])
        if number is None:
            return None
        kind, who = _KINDS[lowered[1]], _assignee(" ".join(words[4:]), mentions)
        return Assign(kind, number, who) if lowered[0] == "assign" else Unassign(kind, number, who)
    return None


def _internal_id(value: str) -> int | None:
    match = _NUMBER.fullmatch(value.strip())
    if match is None:
        return None
    number = int(match.group(1))
    return number if 1 <= number <= MAX_INTERNAL_ID else None


def _assignee(value: str, mentions: Sequence[Mention]) -> Assignee:
    """A mention (its `<at>` text or @name), `me`, or a user principal name as typed."""
    plain = _AT_TAG.sub("", value).strip()
    for mention in mentions:
        if value.strip() == mention.text or plain.removeprefix("@").casefold() in (
            mention.name.casefold(),
            _AT_TAG.sub("", mention.text).casefold(),
        ):
            return mention
    if plain.casefold() == "me":
        return Me()
    return plain.removeprefix("@")


def _suggest(said: str, mentions: Sequence[Mention]) -> str | None:
    """A known command close to what was typed: keywords corrected one by one, else a match."""
    if not said or len(said) > _SUGGEST_MAX_CHARS:
        return None
    tokens = re.split(r"([/ ])", said)
    corrected: list[str] = []
    words: list[str] = []
    for index, token in enumerate(tokens):
        # Keywords are corrected up to the first value: a title or status stays as typed.
        if len(words) >= _SUGGEST_WORDS or _value_follows(words):
            corrected.extend(tokens[index:])
            break
        fixed = _closest(token)
        corrected.append(fixed)
        if fixed.strip(" /"):
            words.append(fixed.casefold())
    candidate = "".join(corrected)
    if candidate != said and _parse(candidate, mentions) is not None:
        return candidate
    close = difflib.get_close_matches(said.casefold(), _EXAMPLES, n=1, cutoff=0.6)
    return close[0] if close else None


def _value_follows(words: list[str]) -> bool:
    return bool(words) and (
        words[-1] in _VALUE_AFTER or words[-2:] in (["new", "bug"], ["new", "task"])
    )


def _closest(token: str) -> str:
    lowered = token.casefold()
    if len(lowered) < 3 or lowered in _KEYWORDS or not lowered.isalpha():
        return token
    close = difflib.get_close_matches(lowered, _KEYWORDS, n=1, cutoff=0.66)
    return close[0] if close else token

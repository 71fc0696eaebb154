"""The "which one?" cards: a chat command whose item number, or new item, several channels could
take, or a name several teammates answer to; each button runs the command again, made exact."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.directory.schemas import UserOut
from cards.layout import Card, action_set, envelope, execute, heading, shorten, subtle
from cards.verbs import RunCommand, Verb

# Teams folds buttons away after about six; a longer list is cut, and the card says so.
MAX_PLACES = 6
LABEL_MAX = 60


@dataclass(frozen=True)
class Place:
    team_id: str  # Teams ids
    channel_id: str
    team_name: str
    channel_name: str

    @property
    def label(self) -> str:
        return shorten(f"{self.team_name} › {self.channel_name}", LABEL_MAX)


def channel_choice(question: str, *, command: str, places: Sequence[Place]) -> Card:
    """A question and one button per channel, each running `command` there."""
    buttons = [
        (place.label, _run(command, channel_id=place.channel_id, team_id=place.team_id))
        for place in places
    ]
    return _choice(question, buttons, noun="channels", elsewhere="run the command in that channel")


def person_choice(
    question: str,
    *,
    command_for: Callable[[UserOut], str],
    people: Sequence[UserOut],
    team_id: str,
    channel_id: str,
) -> Card:
    """A question and one button per teammate (name and UPN, which tell namesakes apart), each
    running their command in the channel the question is about."""
    buttons = [
        (
            shorten(f"{person.display_name} ({person.username})", LABEL_MAX),
            _run(command_for(person), channel_id=channel_id, team_id=team_id),
        )
        for person in people
    ]
    return _choice(question, buttons, noun="people", elsewhere="give their email instead")


def _run(command: str, *, channel_id: str, team_id: str) -> RunCommand:
    return RunCommand(
        verb=Verb.RUN_COMMAND, command=command, channel_id=channel_id, team_id=team_id
    )


def _choice(
    question: str, buttons: Sequence[tuple[str, RunCommand]], *, noun: str, elsewhere: str
) -> Card:
    body = [heading(question)]
    if len(buttons) > MAX_PLACES:
        note = f"The first {MAX_PLACES} of {len(buttons)} {noun}; to reach another, {elsewhere}."
        body.append(subtle(note, wrap=True))
    # One button a row: side by side, their long labels are cut short in Teams.
    body.extend(
        action_set([execute(label, data)], spacing="small") for label, data in buttons[:MAX_PLACES]
    )
    return envelope(body)

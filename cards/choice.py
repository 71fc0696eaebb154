"""The "which channel?" card: a chat command whose item number, or new item, several channels
could take; each button runs the command again in one channel."""

from collections.abc import Sequence
from dataclasses import dataclass

from cards.layout import Card, envelope, execute, heading, shorten, subtle
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
    body = [heading(question)]
    if len(places) > MAX_PLACES:
        note = (
            f"The first {MAX_PLACES} of {len(places)} channels; "
            "to reach another, run the command in that channel."
        )
        body.append(subtle(note, wrap=True))
    actions = [
        execute(
            place.label,
            RunCommand(
                verb=Verb.RUN_COMMAND,
                command=command,
                channel_id=place.channel_id,
                team_id=place.team_id,
            ),
        )
        for place in places[:MAX_PLACES]
    ]
    return envelope(body, actions)

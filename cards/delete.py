"""`delete bug 9`: the card asking to confirm, and the line once the item is gone."""

from bot.items.schemas import TaskDetails
from bot.schemas import ItemKind
from cards.item import item_action, kind_of
from cards.layout import Card, envelope, execute, rich_text, shorten, subtle, text_run
from cards.verbs import DeleteItem, More, Verb

TITLE_MAX = 120
FOR_GOOD = (
    "It goes for good, with its assignees, attachments and stored discussion; its number is "
    "not given again."
)


def delete_confirmation(item: TaskDetails) -> Card:
    """ "Delete #9 <title>?", with Delete (destructive) and Cancel (back to the item card)."""
    kind, number = kind_of(item), item.internal_id
    confirm = DeleteItem(
        verb=Verb.DELETE_ITEM,
        kind=kind,
        item_id=item.id,
        channel_id=item.channel_id,
        internal_id=number,
    )
    # A TextRun shows the title as written (a TextBlock would read markdown in it).
    question = text_run(f"Delete #{number} {shorten(item.name, TITLE_MAX)}?", weight="bolder")
    return envelope(
        [rich_text(question), subtle(FOR_GOOD, wrap=True)],
        [
            execute("Delete", confirm, style="destructive"),
            execute("Cancel", item_action(item, Verb.SHOW_ITEM)),
        ],
    )


def deleted_card(line: str, *, kind: ItemKind, channel_id: str) -> Card:
    """What the Delete did (or that the item was gone already), and a button to the list."""
    to_list = More(verb=Verb.MORE, kind=kind, channel_id=channel_id, command=kind.plural, skip=0)
    return envelope(
        [rich_text(text_run(shorten(line, TITLE_MAX + 40)))],
        [execute(kind.plural.capitalize(), to_list)],
    )

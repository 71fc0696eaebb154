"""What the domain says (`bot.messaging.Said`) as the cards Teams shows."""

from typing import Any

from bot.discussions.heads import BOT_NAME
from bot.messaging import (
    Assigned,
    Carded,
    DeletedRoot,
    Digest,
    NotificationsFailing,
    RuleSwitchedOff,
    SyncPaused,
    SyncStatesAdded,
    ThreadRoot,
)
from bot.teams.commands.card_data import details_model, list_row
from bot.teams.links import item_link
from cards.assigned import assigned_card, assigned_list_card
from cards.digest import Told, digest_card
from cards.mentions import mentioning
from cards.rules import notifications_failing_card, rule_switched_off_card
from cards.sync import sync_paused_card, sync_states_added_card
from cards.thread import deleted_root_card, root_card, root_description


def card_of(said: Carded, *, public_url: str) -> dict[str, Any]:
    """The card; `public_url` is the base of the items' links."""
    match said:
        case RuleSwitchedOff(rule=rule, reason=reason):
            return rule_switched_off_card(name=rule, reason=reason)
        case NotificationsFailing(failures=failures, error=error):
            return notifications_failing_card(failures=failures, error=error)
        case Assigned(kind=kind, items=items, actor=actor, at=at):
            if len(items) > 1:
                rows = [list_row(item) for item in items]
                return assigned_list_card(rows, kind=kind, actor=actor, now=at)
            [item] = items
            url = item_link(public_url, kind, item["_id"])
            return assigned_card(details_model(kind, item), actor=actor, item_url=url)
        case SyncPaused(project=project, project_id=project_id, source=source, reason=reason):
            return sync_paused_card(
                project=project, project_id=project_id, source=source, reason=reason
            )
        case SyncStatesAdded(project=project, project_id=project_id, source=source, states=states):
            return sync_states_added_card(
                project=project, project_id=project_id, source=source, states=states
            )
        case ThreadRoot(kind=kind, item=item, at=at, asks_mention=asks, mentions=people):
            # The people a notification names are @mentioned inside the card: a text beside a
            # card is shown by some clients in place of the card.
            model = details_model(kind, item)
            url = item_link(public_url, kind, model.id)
            card = root_card(model, item_url=url, now=at, mention=BOT_NAME if asks else None)
            return mentioning(card, people)
        case DeletedRoot(described=described):
            return deleted_root_card(described)
        case Digest(lines=lines, channel_id=channel_id):
            return digest_card(
                [
                    Told(line.summary, item_link(public_url, line.kind, line.item_id))
                    for line in lines
                ],
                channel_id=channel_id,
                kinds={line.kind.plural for line in lines},
            )


def description_of(root: ThreadRoot, *, public_url: str) -> dict[str, Any]:
    """The root as the API describes it (the seed's connector-card shape)."""
    model = details_model(root.kind, root.item)
    return root_description(model, item_url=item_link(public_url, root.kind, model.id))

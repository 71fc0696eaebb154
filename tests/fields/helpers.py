"""Reading a channel's field values straight from the database, to check what a request left."""

from sqlalchemy import select

from bot.db.tables import Channel, FieldValue, Item
from tests.factories import CHANNEL, Factory

BASE = "http://127.0.0.1:3978"


async def field_values(
    factory: Factory, field: str, type_label: str = "Bug", channel: str = CHANNEL
) -> dict[str, FieldValue]:
    """The values of one field and kind in a channel (Team A's by default), by name."""
    async with factory.work() as uow:
        rows = await uow.session.scalars(
            select(FieldValue)
            .join(Channel, Channel.id == FieldValue.channel_id)
            .where(
                Channel.teams_id == channel,
                FieldValue.field == field,
                FieldValue.type == type_label,
            )
        )
        return {row.name: row for row in rows}


async def stored_item(factory: Factory, item_id: str) -> Item:
    async with factory.work() as uow:
        item = await uow.session.get(Item, item_id)
        assert item is not None
        return item

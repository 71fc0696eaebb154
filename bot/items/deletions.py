"""Items about to be deleted, told in the deleting transaction before their rows go, to whoever
keeps something of them (an item's discussion thread outlives its rows:
`bot.discussions.coalescer.item_deleting`). `create_app` registers them, as it does the event
pump's observers, so that items import none of the parts above them."""

from collections.abc import Sequence
from typing import Protocol

from bot.db.uow import UnitOfWork


class Observer(Protocol):
    async def __call__(self, uow: UnitOfWork, *, item_ids: Sequence[str]) -> None: ...


class ItemDeletions:
    def __init__(self) -> None:
        self._observers: list[Observer] = []

    def observe(self, observer: Observer) -> None:
        self._observers.append(observer)

    async def deleting(self, uow: UnitOfWork, *, item_ids: Sequence[str]) -> None:
        for observer in self._observers:
            await observer(uow, item_ids=item_ids)

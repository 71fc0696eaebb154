"""Who a task's assignments name: Planner keys them by Entra object id only, so the display
name of each is read from the directory (`GET /users/{id}?$select=displayName`), once per user a
connector meets, and shown where a user matches no team member (`sync.unmatched`). A user Graph
will not show (gone, or the app lacks `User.Read.All`) keeps their object id."""

import asyncio
from dataclasses import replace

from bot.sync.planner.client import GraphClient
from bot.sync.source import (
    SourceError,
    SourceItem,
    SourceNotFound,
    SourcePerson,
    SourceRefused,
    SourceUnauthorized,
)


class Names:
    def __init__(self, client: GraphClient) -> None:
        self._client = client
        self._names: dict[str, asyncio.Task[str]] = {}  # one read per user, shared by waiters
        self._readable = True  # False once Graph refuses the app the directory

    async def named(self, item: SourceItem) -> SourceItem:
        """The item with its assignees' display names."""
        people = item.fields.assignees
        if not people:
            return item
        named = tuple([SourcePerson(p.id, await self._name(p.id), p.email) for p in people])
        return replace(item, fields=replace(item.fields, assignees=named))

    def _name(self, user_id: str) -> asyncio.Task[str]:
        found = self._names.get(user_id)
        if found is None:
            found = self._names[user_id] = asyncio.ensure_future(self._read(user_id))
        return found

    async def _read(self, user_id: str) -> str:
        if not self._readable:
            return user_id
        client = self._client
        url = client.url("users", user_id).with_query({"$select": "displayName"})
        try:
            answer = await client.call("GET", url, what=f"read user {user_id}")
        except (SourceNotFound, SourceRefused):
            return user_id
        except SourceUnauthorized:  # no User.Read.All: the tasks are read all the same
            self._readable = False
            return user_id
        except SourceError:  # unreachable for now: the id this time, read again next time
            self._names.pop(user_id, None)
            return user_id
        return str((answer or {}).get("displayName") or user_id)

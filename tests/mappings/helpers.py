"""What the mapping tests share: the mapping rows as stored, a channel status added and a source
state unmapped through the API, one state's mapping, and an item's status as its details show."""

from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import FieldMapping
from tests.factories import Factory, Member
from tests.projects.bodies import mappings_of

DUPLICATE = {"code": "Duplicate mapping", "message": "Duplicate mapping"}
NOT_MAPPED = "Svc_MAPPING_NOTFOUND"


async def stored(factory: Factory) -> list[tuple[Any, ...]]:
    """Every mapping row as stored: what a refusal must leave as it was."""
    async with factory.work() as uow:
        rows = await uow.session.scalars(select(FieldMapping).order_by(FieldMapping.id))
        return [tuple(getattr(row, c.key) for c in FieldMapping.__table__.columns) for row in rows]


async def unmap(
    client: TestClient, member: Member, project_id: str, kind: str, source_id: str
) -> None:
    """Delete the default mapping of one source state, so the tests can map it themselves."""
    (mapping,) = [
        m
        for m in await mappings_of(client, member, project_id, entityType=kind, type="status")
        if m["sourceId"] == source_id
    ]
    response = await client.delete(
        f"/odata/_fieldMappings({mapping['_id']})", headers=member.in_channel()
    )
    assert response.status == 204


async def add_status(client: TestClient, member: Member, name: str, kind: str = "Bug") -> str:
    response = await client.post(
        "/odata/status",
        json={"name": name, "type": kind, "category": "Active"},
        headers=member.in_channel(),
    )
    assert response.status == 201
    return (await response.json())["_id"]


async def shown(client: TestClient, member: Member, item: dict[str, Any], of: str = "bug") -> tuple:
    """(status, sync.status) as the item's details show them."""
    response = await client.get(f"/api/{of}s/{item['_id']}/details", headers=member.in_channel())
    assert response.status == 200
    details = await response.json()
    return details["status"], details["sync"]["status"]


async def the_mapping(
    client: TestClient, member: Member, project_id: str, kind: str, source_id: str
) -> dict[str, Any]:
    (mapping,) = await mappings_of(
        client, member, project_id, entityType=kind, type="status", sourceId=source_id
    )
    return mapping

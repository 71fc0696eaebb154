"""`GET /odata/$metadata`: public CSDL of every declared set, read by a real OData client.

The client is python-odata (OData v4, reflects entity classes from `$metadata`, uses requests),
run in a thread against the app served on a real port.
"""

import asyncio
from datetime import UTC, datetime
from typing import Any
from xml.etree import ElementTree

import pytest
import requests
from aiohttp.test_utils import unused_port
from odata import ODataService
from pydantic import BaseModel

from bot.app import ROUTE_TABLES, create_app
from bot.fields.queries import STATUSES
from bot.odata.metadata import EDM
from bot.web.metadata import described_sets
from bot.web.routing import Access, Endpoint, RouteTable
from tests.factories import Factory, Member, create_item

NS = {"edm": EDM}
ENDPOINTS = [endpoint for table in ROUTE_TABLES for endpoint in table.endpoints]
DECLARED = [endpoint.odata_set for endpoint in ENDPOINTS if endpoint.odata_set is not None]


async def test_metadata_is_public_csdl_xml(client) -> None:
    response = await client.get("/odata/$metadata")  # no credentials
    assert response.status == 200
    assert response.content_type == "application/xml"
    assert response.headers["OData-Version"] == "4.0"
    root = ElementTree.fromstring(await response.read())
    assert root.attrib["Version"] == "4.0"


async def test_the_service_document_lists_every_declared_set(client) -> None:
    response = await client.get("/odata/")  # no credentials, like $metadata
    assert response.status == 200
    assert response.headers["OData-Version"] == "4.0"
    document = await response.json()
    assert document["@odata.context"] == "http://127.0.0.1:3978/odata/$metadata"
    assert {"name": "bugs", "kind": "EntitySet", "url": "bugs"} in document["value"]
    assert sorted(row["url"] for row in document["value"]) == sorted(s.name for s in DECLARED)
    # Each URL, relative to the service root, is a list: without credentials 401, never a 404.
    for row in document["value"]:
        listed = await client.get(f"/odata/{row['url']}")
        assert listed.status == 401, row


async def test_every_declared_set_is_described_with_its_key_and_properties(client) -> None:
    root = ElementTree.fromstring(await (await client.get("/odata/$metadata")).read())
    container = {
        s.attrib["Name"]: s.attrib["EntityType"].removeprefix("Tracker.")
        for s in root.findall(".//edm:EntityContainer/edm:EntitySet", NS)
    }
    assert {"bugs", "tasks", "status"} <= set(container)
    assert set(container) == {entity.name for entity in DECLARED}
    for entity in DECLARED:
        described = root.find(f".//edm:EntityType[@Name='{container[entity.name]}']", NS)
        assert described is not None, entity.name
        keys = [ref.attrib["Name"] for ref in described.findall("edm:Key/edm:PropertyRef", NS)]
        assert keys == [entity.key.name]
        declared = {p.attrib["Name"] for p in described.findall("edm:Property", NS)}
        # Whatever a client may filter on is a declared property of the elements it reads.
        # A path into a complex property (`sync/status`) is described by that property's type.
        queryable = {name.split("/")[0] for name in entity.properties} | set(entity.collections)
        assert queryable <= declared, f"{entity.name}: {sorted(queryable - declared)}"
        undeclared = entity.select_only - declared
        assert not undeclared or described.attrib.get("OpenType") == "true", entity.name


class OnePage(BaseModel):
    value: list[int]


def declared_on(method: str, path: str, response: type[BaseModel] | None) -> list[Endpoint]:
    table = RouteTable(tag="probe")

    async def handler(_call: Any) -> None:
        return None

    table.route(
        method, path, access=Access.USER, summary="", response=response, odata_set=STATUSES
    )(handler)
    return table.endpoints


@pytest.mark.parametrize(
    ("method", "path", "response", "why"),
    [
        ("GET", "/api/status", None, "a set is declared on GET /odata/status"),
        ("GET", "/odata/statuses", None, "a set is declared on GET /odata/status"),
        ("POST", "/odata/status", None, "a set is declared on GET /odata/status"),
        ("GET", "/odata/status", None, "answers a CollectionPage"),
        ("GET", "/odata/status", OnePage, "answers a CollectionPage"),
    ],
)
def test_a_set_a_client_could_not_read_is_refused(
    method: str, path: str, response: type[BaseModel] | None, why: str
) -> None:
    with pytest.raises(ValueError, match=why):
        described_sets(declared_on(method, path, response))


@pytest.fixture
async def service_root(db: str, make_settings, clock, aiohttp_server) -> str:  # noqa: ANN001
    """The app on a real port, its public URL that port, so next links lead back to it."""
    port = unused_port()
    settings = make_settings(db, PUBLIC_URL=f"http://127.0.0.1:{port}")
    server = await aiohttp_server(create_app(settings, clock=clock), port=port)
    return str(server.make_url("/odata/"))


def connect(url: str, headers: dict[str, str]) -> ODataService:
    """python-odata loads $metadata and builds one class per entity set."""
    session = requests.Session()
    session.headers.update(headers)
    return ODataService(url, reflect_entities=True, session=session, quiet_progress=True)


@pytest.fixture
async def ada(factory: Factory) -> Member:
    return await factory.member("Ada Lovelace")


async def test_an_odata_client_lists_bugs_with_a_filter_and_gets_typed_values(
    client, service_root: str, ada: Member
) -> None:
    due = "2026-12-01T08:00:00.000Z"
    crash = await create_item(
        client, ada, name="Crash", status="In Progress", dueDate=due, assignedTo=[ada.user.id]
    )
    await create_item(client, ada, name="Typo", status="In Progress")
    await create_item(client, ada, name="Old", status="Completed")

    def read() -> list[Any]:
        service = connect(service_root, ada.in_channel())
        assert {"bugs", "tasks", "status"} <= set(service.entities)
        bugs = service.entities["bugs"]
        query = service.query(bugs).filter(bugs.status == "In Progress")
        return list(query.order_by(bugs.internalId.asc()))

    found = await asyncio.to_thread(read)
    assert [bug.name for bug in found] == ["Crash", "Typo"]
    first = found[0]
    assert first._id == crash["_id"]
    assert first.internalId == crash["internalId"] and isinstance(first.internalId, int)
    assert first.dueDate == datetime(2026, 12, 1, 8, tzinfo=UTC)
    assert first.createdAt.tzinfo is not None
    assert found[1].dueDate is None
    assert [user["_id"] for user in first.assignedTo] == [ada.user.id]
    assert first.statusId["category"] == "Active"


async def test_an_odata_client_filters_by_date_sorts_and_pages(
    client, service_root: str, ada: Member
) -> None:
    for day in range(1, 5):
        await create_item(client, ada, name=f"Due {day}", dueDate=f"2026-12-0{day}T00:00:00Z")

    def read() -> list[str]:
        service = connect(service_root, ada.in_channel())
        bugs = service.entities["bugs"]
        after = datetime(2026, 12, 2, tzinfo=UTC)  # sent as 2026-12-02T00:00:00+00:00
        query = service.query(bugs).filter(bugs.dueDate >= after).order_by(bugs.dueDate.desc())
        return [bug.name for bug in query.limit(2)]

    assert await asyncio.to_thread(read) == ["Due 4", "Due 3"]


async def test_an_odata_client_reads_the_channel_statuses(service_root: str, ada: Member) -> None:
    def read() -> list[Any]:
        service = connect(service_root, ada.in_channel())
        status = service.entities["status"]
        return list(service.query(status).filter(status.type == "Bug").order_by(status.order.asc()))

    found = await asyncio.to_thread(read)
    assert [(s.name, s.primary, s.value) for s in found] == [
        ("Not Started", True, 0),
        ("In Progress", False, 50),
        ("Completed", False, 100),
    ]
    assert all(isinstance(s.order, int) and s.updatedAt.tzinfo is not None for s in found)


async def test_without_credentials_the_client_reads_metadata_but_no_rows(
    service_root: str,
) -> None:
    def read() -> tuple[set[str], int]:
        service = connect(service_root, {})  # $metadata is public: the classes are built
        rows = service.default_context.connection.session.get(f"{service_root}bugs")
        return set(service.entities), rows.status_code

    entities, status = await asyncio.to_thread(read)
    assert {"bugs", "tasks", "status"} <= entities
    assert status == 401

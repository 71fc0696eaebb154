"""`GET /odata/$metadata`: the CSDL document of every list route declared with `odata_set=`,
and `GET /odata/`, the service document that lists those sets (what Power Query reads first).

Public (docs/api.md, Signing in): it is the same for every caller, holds no data, and clients
(Power Query, OData libraries) fetch it before anything else, some before they send credentials.
The service root is `/odata/`: a client reads a set at `/odata/<set name>`, so a set is described
only by the GET route at exactly that path.
"""

from typing import get_args

import orjson
from aiohttp import web
from pydantic import BaseModel

from bot.keys import ODATA_METADATA
from bot.odata.metadata import DescribedSet, csdl_document
from bot.schemas import CollectionPage
from bot.web.routing import Endpoint

SERVICE_ROOT = "/odata/"
PATH = f"{SERVICE_ROOT}$metadata"


def install_metadata(app: web.Application, endpoints: list[Endpoint], public_url: str) -> None:
    """Build both documents once, from the declared routes, and serve them."""
    sets = described_sets(endpoints)
    app[ODATA_METADATA] = csdl_document(sets)
    app.router.add_get(PATH, metadata_xml)
    service = service_document(sets, public_url)

    async def service_json(_request: web.Request) -> web.Response:
        return web.Response(
            body=service, content_type="application/json", headers={"OData-Version": "4.0"}
        )

    app.router.add_get(SERVICE_ROOT, service_json)


def service_document(sets: list[DescribedSet], public_url: str) -> bytes:
    """OData's service document: each set's name and its URL relative to the service root."""
    return orjson.dumps(
        {
            "@odata.context": f"{public_url}{PATH}",
            "value": [
                {"name": described.entity.name, "kind": "EntitySet", "url": described.entity.name}
                for described in sets
            ],
        }
    )


def described_sets(endpoints: list[Endpoint]) -> list[DescribedSet]:
    """The sets of the routes that declare one; a declaration a client could not follow raises."""
    described = []
    for endpoint in endpoints:
        entity = endpoint.odata_set
        if entity is None:
            continue
        route = f"{endpoint.method} {endpoint.path}"
        if endpoint.method != "GET" or endpoint.path != f"{SERVICE_ROOT}{entity.name}":
            raise ValueError(f"{route}: a set is declared on GET {SERVICE_ROOT}{entity.name}")
        described.append(DescribedSet(entity, _element_of(route, endpoint.response)))
    return described


def _element_of(route: str, page: type[BaseModel] | None) -> type[BaseModel]:
    """The model of one element of a collection page's `value`."""
    if page is None or not issubclass(page, CollectionPage) or "value" not in page.model_fields:
        raise ValueError(f"{route}: a set's route answers a CollectionPage with a `value`")
    (element,) = get_args(page.model_fields["value"].annotation)
    return element


async def metadata_xml(request: web.Request) -> web.Response:
    return web.Response(
        body=request.app[ODATA_METADATA],
        content_type="application/xml",
        charset="utf-8",
        headers={"OData-Version": "4.0"},
    )

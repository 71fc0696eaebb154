"""The OpenAPI document and the docs page."""

from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

from bot.app import ROUTE_TABLES


async def test_openapi_document_is_valid_openapi_3_1(client) -> None:
    response = await client.get("/openapi.json")
    assert response.status == 200
    document = await response.json()
    assert document["openapi"] == "3.1.0"
    validate(document, cls=OpenAPIV31SpecValidator)


async def test_every_declared_route_is_documented(client) -> None:
    document = await (await client.get("/openapi.json")).json()
    documented = {
        (method.upper(), path) for path, item in document["paths"].items() for method in item
    }
    declared = {(e.method, e.path) for table in ROUTE_TABLES for e in table.endpoints}
    assert declared == documented


async def test_channel_routes_document_their_headers_and_errors(client) -> None:
    document = await (await client.get("/openapi.json")).json()
    operation = document["paths"]["/api/context"]["get"]
    headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
    assert headers == {"x-svc-teamid", "x-svc-channelId"}
    assert {"400", "401", "403", "500"} <= set(operation["responses"])
    assert operation["security"] == [{"session": []}, {"apiToken": []}]


async def test_nullable_fields_are_marked_nullable(client) -> None:
    document = await (await client.get("/openapi.json")).json()
    email = document["components"]["schemas"]["UserOut"]["properties"]["email"]
    assert {"type": "null"} in email["anyOf"]


async def test_docs_page_works_offline(client) -> None:
    page = await client.get("/docs")
    assert page.status == 200
    html = await page.text()
    assert '"/openapi.json"' in html
    assert "http" not in html.replace("http-equiv", "")  # nothing fetched from elsewhere
    script = await client.get("/docs/static/swagger-ui-bundle.js")
    assert script.status == 200
    assert len(await script.read()) > 100_000


async def test_query_options_document_what_the_service_refuses(client) -> None:
    document = await (await client.get("/openapi.json")).json()

    def schemas(path: str) -> dict[str, dict]:
        parameters = document["paths"][path]["get"]["parameters"]
        return {p["name"]: p["schema"] for p in parameters if p["in"] == "query"}

    listed = schemas("/api/bugs")
    for name in ("$filter", "$orderby", "$select", "$skiptoken"):
        assert listed[name]["minLength"] == 1, name  # `?$filter=` is a 400
        assert listed[name]["pattern"] == r"\S", name  # so is `?$filter=%20`
    assert listed["$filter"]["maxLength"] == 2048
    # The discussion pages read $top, $skip, $count and $orderby as the lists do.
    for path in ("/api/bugs/{id}/messages", "/api/tasks/{id}/comments"):
        for name, schema in schemas(path).items():
            assert schema == listed[name], (path, name)

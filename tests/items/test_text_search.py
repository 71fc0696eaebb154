"""Text search ignores case by Unicode's rules on both databases, whichever way it is read: a
text of ASCII alone is first sorted out by SQLite's own LIKE, which must then miss nothing the
fold finds (the Kelvin sign lowers into "k", "É" into "é")."""

import pytest

from tests.factories import Factory
from tests.items.refusals import create

NAMES = ("\u212aelvin scale", "Plain aBc", "École", "Kiosk", "Other")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("abc", {"Plain aBc"}),
        ("ABC", {"Plain aBc"}),
        ("kel", {"\u212aelvin scale"}),
        ("k", {"\u212aelvin scale", "Kiosk"}),
        ("éc", {"École"}),
        ("ÉCOLE", {"École"}),
        ("scale", {"\u212aelvin scale"}),
        ("x", set()),
    ],
)
async def test_contains_finds_every_name_holding_the_text_in_any_case(
    client, factory: Factory, text: str, found: set[str]
) -> None:
    ada = await factory.member("Ada")
    for name in NAMES:
        await create(client, ada, name=name)
    for field in ("name", "body"):
        response = await client.get(
            "/odata/bugs",
            params={"$filter": f"contains({field}, '{text}') or contains(name, '{text}')"},
            headers=ada.in_channel(),
        )
        assert response.status == 200, await response.text()
        assert {item["name"] for item in (await response.json())["value"]} == found

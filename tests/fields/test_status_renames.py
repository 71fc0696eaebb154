"""Status renames share the priority rules: a change of case alone is a rename too."""

from tests.factories import Factory, create_item
from tests.fields.helpers import field_values, stored_item


async def test_a_change_of_case_alone_renames_a_status(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, status="In Progress")
    status = (await field_values(factory, "status"))["In Progress"]
    response = await client.patch(
        f"/odata/status({status.id})", json={"name": "In progress"}, headers=ada.in_channel()
    )
    assert response.status == 204
    assert "In progress" in await field_values(factory, "status")
    assert (await stored_item(factory, bug["_id"])).status == "In progress"


async def test_a_rename_to_invalid_is_refused_whatever_the_case(client, factory: Factory) -> None:
    ada = await factory.member()
    status = (await field_values(factory, "status"))["In Progress"]
    response = await client.patch(
        f"/odata/status({status.id})", json={"name": "INVALID"}, headers=ada.in_channel()
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith("name: ")
    assert "In Progress" in await field_values(factory, "status")

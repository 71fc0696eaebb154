"""Directory rules as the CLI, SSO and roster sync rely on them."""

import pytest
from sqlalchemy import func, select

from bot.db.tables import Team, TeamMember, Tenant, User
from bot.directory.schemas import MembershipType
from bot.directory.teams import tenant_has_team, upsert_team
from bot.directory.users import add_member, find_user, remove_member, upsert_user
from bot.errors import Conflict, Invalid, NotFound
from tests.factories import TEAM, TENANT, Factory


async def test_adding_a_team_twice_updates_it(factory: Factory) -> None:
    first = await factory.team(name="Old name")
    async with factory.work() as uow:
        second = await upsert_team(uow, team_id=TEAM, name="New name")
        teams = await uow.session.scalar(select(func.count()).select_from(Team))
    assert second.id == first.id
    assert second.name == "New name"
    assert second.tenant_id == TENANT  # kept when not given again
    assert teams == 1


async def test_a_team_records_its_tenant(factory: Factory) -> None:
    await factory.team()
    async with factory.work() as uow:
        assert await uow.session.get(Tenant, TENANT) is not None
        assert await tenant_has_team(uow, tenant_id=TENANT)
        assert not await tenant_has_team(uow, tenant_id="another-tenant")


async def test_channel_needs_a_known_team(factory: Factory) -> None:
    with pytest.raises(NotFound):
        await factory.channel(team_id="19:unknown@thread.tacv2")


async def test_channel_cannot_move_to_another_team(factory: Factory) -> None:
    await factory.standard_team()
    await factory.team("19:team-b@thread.tacv2", name="Team B")
    with pytest.raises(Conflict):
        await factory.channel(team_id="19:team-b@thread.tacv2")


async def test_channel_rename_and_membership_change_are_recorded(factory: Factory) -> None:
    await factory.standard_team()
    renamed = await factory.channel(name="Triage", membership=MembershipType.PRIVATE)
    assert (renamed.name, renamed.membership_type) == ("Triage", MembershipType.PRIVATE)


async def test_users_are_unique_by_object_id_and_upn_is_lowercased(factory: Factory) -> None:
    async with factory.work() as uow:
        first = await upsert_user(
            uow, source_id="oid-1", username="Ada@Contoso.TEST", display_name="Ada"
        )
        again = await upsert_user(
            uow, source_id="oid-1", username="ada@contoso.test", display_name="Ada L."
        )
        users = await uow.session.scalar(select(func.count()).select_from(User))
    assert first.username == "ada@contoso.test"
    assert again.id == first.id and again.display_name == "Ada L."
    assert users == 1


async def test_a_upn_cannot_belong_to_two_users(factory: Factory) -> None:
    async with factory.work() as uow:
        await upsert_user(uow, source_id="oid-1", username="a@b.c", display_name="A")
    with pytest.raises(Conflict):
        async with factory.work() as uow:
            await upsert_user(uow, source_id="oid-2", username="A@B.C", display_name="B")


@pytest.mark.parametrize(
    ("field", "values"),
    [
        ("id", {"source_id": "", "username": "a@b.c", "display_name": "A"}),
        ("username", {"source_id": "oid", "username": "no-at-sign", "display_name": "A"}),
        ("displayName", {"source_id": "oid", "username": "a@b.c", "display_name": "  "}),
        ("id", {"source_id": "x" * 65, "username": "a@b.c", "display_name": "A"}),
    ],
)
async def test_bad_user_fields_are_refused(factory: Factory, field: str, values: dict) -> None:
    with pytest.raises(Invalid) as refused:
        async with factory.work() as uow:
            await upsert_user(uow, **values)
    assert refused.value.field == field


async def test_users_resolve_by_id_object_id_upn_or_email(factory: Factory) -> None:
    user = await factory.user("Grace Hopper")
    async with factory.work() as uow:
        for ref in (user.id, user.source_id, "GRACE.HOPPER@contoso.test", user.email):
            assert (await find_user(uow, ref=ref)).id == user.id
        with pytest.raises(NotFound):
            await find_user(uow, ref="nobody@contoso.test")


async def test_membership_add_is_idempotent_and_remove_ends_it(factory: Factory) -> None:
    await factory.team()
    user = await factory.user()
    async with factory.work() as uow:
        await add_member(uow, team_id=TEAM, user_ref=user.username)
        await add_member(uow, team_id=TEAM, user_ref=user.username)
        count = await uow.session.scalar(select(func.count()).select_from(TeamMember))
        assert count == 1
        removed = await remove_member(uow, team_id=TEAM, user_ref=user.id)
        assert removed.member is False
        assert await uow.session.scalar(select(func.count()).select_from(TeamMember)) == 0

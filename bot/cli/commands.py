"""One coroutine per CLI command; each calls services inside one unit of work."""

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from bot import workspace
from bot.auth import service as auth
from bot.auth.schemas import ApiTokenOut, SessionOut
from bot.cli import demo_sources, demo_sync
from bot.cli.package import build_package
from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.migrate import migrate as apply_migrations
from bot.db.uow import UnitOfWork, unit_of_work
from bot.demo import DemoOut, seed_demo
from bot.directory.schemas import ChannelOut, MembershipOut, MembershipType, TeamOut, UserOut
from bot.directory.teams import upsert_team
from bot.directory.users import add_member, find_user, remove_member, upsert_user, user_out
from bot.settings import Settings


@asynccontextmanager
async def work(settings: Settings, *, write: bool = True) -> AsyncIterator[UnitOfWork]:
    """The database brought to head, then one transaction (or, for a command that only reads,
    reads outside any, so the app's writers never wait for it)."""
    engine = create_engine(settings.database_url)
    try:
        await apply_migrations(engine)
        async with unit_of_work(session_factory(engine), SystemClock(), write=write) as uow:
            yield uow
    finally:
        await engine.dispose()


async def migrate(settings: Settings, _args: argparse.Namespace) -> dict[str, str]:
    engine = create_engine(settings.database_url)
    try:
        await apply_migrations(engine)
    finally:
        await engine.dispose()
    return {"migrated": "head"}


async def manifest(_settings: Settings | None, args: argparse.Namespace) -> dict[str, str]:
    out = build_package(app=args.app_id, host=args.domain, out=args.out)
    return {"package": str(out), "appId": args.app_id, "domain": args.domain}


async def team_add(settings: Settings, args: argparse.Namespace) -> TeamOut:
    async with work(settings) as uow:
        return await upsert_team(
            uow,
            team_id=args.team_id,
            name=args.name,
            tenant_id=args.tenant_id,
            group_id=args.group_id,
        )


async def channel_add(settings: Settings, args: argparse.Namespace) -> ChannelOut:
    kind = MembershipType.PRIVATE if args.private else MembershipType.STANDARD
    async with work(settings) as uow:
        return await workspace.add_channel(
            uow,
            team_id=args.team_id,
            channel_id=args.channel_id,
            name=args.name,
            membership_type=kind,
        )


async def user_add(settings: Settings, args: argparse.Namespace) -> UserOut:
    async with work(settings) as uow:
        return await upsert_user(
            uow,
            source_id=args.object_id,
            username=args.upn,
            display_name=args.name,
            email=args.email,
        )


async def member_add(settings: Settings, args: argparse.Namespace) -> MembershipOut:
    async with work(settings) as uow:
        return await add_member(uow, team_id=args.team_id, user_ref=args.user)


async def member_remove(settings: Settings, args: argparse.Namespace) -> MembershipOut:
    async with work(settings) as uow:
        return await remove_member(uow, team_id=args.team_id, user_ref=args.user)


async def session_create(settings: Settings, args: argparse.Namespace) -> SessionOut:
    async with work(settings) as uow:
        user = await find_user(uow, ref=args.user)
        issued = await auth.issue_session(
            uow, user_id=user.id, ttl=timedelta(seconds=settings.session_ttl)
        )
        return SessionOut(cookie=issued.secret, expires_at=issued.expires_at, user=user_out(user))


async def token_create(settings: Settings, args: argparse.Namespace) -> ApiTokenOut:
    days = args.ttl_days or settings.api_token_ttl_days
    async with work(settings) as uow:
        user = await find_user(uow, ref=args.user)
        issued = await auth.issue_api_token(uow, user_id=user.id, ttl=timedelta(days=days))
        return ApiTokenOut(token=issued.secret, expires_at=issued.expires_at, user=user_out(user))


async def demo(settings: Settings, args: argparse.Namespace) -> DemoOut | None:
    for option, source in demo_sources.SOURCES.items():
        flag = option.replace("-", "_")
        if getattr(args, f"with_{flag}"):  # serves until interrupted, having said where
            await demo_sync.serve(
                settings,
                source(),
                source_port=getattr(args, f"{flag}_port"),
                until=demo_sync.until_interrupted,
            )
            return None
    async with work(settings) as uow:
        return await seed_demo(uow, session_ttl=timedelta(seconds=settings.session_ttl))

"""Sessions and API tokens: random secrets, stored hashed, expiring, revocable."""

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import bindparam, insert, select, update

from bot.auth.schemas import IssuedToken
from bot.auth.sso import SsoIdentity
from bot.db.statements import Prepared, Row
from bot.db.tables import AuthToken, User
from bot.db.uow import Actor, ChannelScope, UnitOfWork
from bot.directory.access import CHANNEL_ACCESS, admit_to_channel, join_channel_access
from bot.directory.actors import ACTOR_COLUMNS, actor_of_row
from bot.directory.schemas import UserOut
from bot.directory.teams import tenant_has_team
from bot.directory.users import upsert_user
from bot.errors import Forbidden, Invalid, Unauthorized
from bot.ids import new_id

SESSION = "session"
API_TOKEN = "api"
# A sliding session is pushed forward at most this often, so reads do not all become writes.
SLIDE_GRANULARITY = timedelta(minutes=1)

NO_CREDENTIALS = "Authentication required: send the graphNodeCookie cookie or a Bearer token."
BAD_CREDENTIALS = "The session or token is unknown, expired or revoked."


# Columns, not entities: every request runs this, and the ORM's identity map buys nothing here.
_LOOKUP = (
    select(
        AuthToken.id.label("token_id"),
        AuthToken.expires_at,
        AuthToken.revoked_at,
        AuthToken.sliding_seconds,
        *ACTOR_COLUMNS,
    )
    .join(User, User.id == AuthToken.user_id)
    .where(AuthToken.token_hash == bindparam("token_hash"))
)


_LOOKUP_IN_CHANNEL = join_channel_access(_LOOKUP.add_columns(*CHANNEL_ACCESS), User.id)
_CALLER = Prepared(_LOOKUP)
_CALLER_IN_CHANNEL = Prepared(_LOOKUP_IN_CHANNEL)


def hash_secret(secret: str) -> str:
    # Secrets carry 256 random bits, so a plain digest is enough: nothing to brute-force.
    # A cookie or header that was not UTF-8 comes with lone surrogates; "surrogatepass" digests
    # it all the same, to a hash no issued secret has (a 401, not a 500).
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


async def issue_session(uow: UnitOfWork, *, user_id: str, ttl: timedelta) -> IssuedToken:
    """A session whose expiry slides forward by `ttl` on use."""
    return await _issue(uow, user_id=user_id, kind=SESSION, ttl=ttl, sliding=True)


async def issue_api_token(uow: UnitOfWork, *, user_id: str, ttl: timedelta) -> IssuedToken:
    """A token for scripts, with a fixed expiry."""
    return await _issue(uow, user_id=user_id, kind=API_TOKEN, ttl=ttl, sliding=False)


async def sign_in_with_sso(
    uow: UnitOfWork, *, identity: SsoIdentity, allowed_tenants: list[str], ttl: timedelta
) -> tuple[UserOut, IssuedToken]:
    """Admit a verified Teams identity by the tenant rule, record the user, open a session."""
    tenant = identity.tenant_id
    if allowed_tenants and tenant not in allowed_tenants:
        raise Forbidden(f"Tenant '{tenant}' is not allowed to sign in.")
    if not allowed_tenants and not await tenant_has_team(uow, tenant_id=tenant):
        raise Forbidden(f"Tenant '{tenant}' has no team with this app installed.")
    try:
        user = await upsert_user(
            uow,
            source_id=identity.object_id,
            username=identity.username,
            display_name=identity.display_name,
            email=identity.email,
        )
    except Invalid as exc:
        raise Unauthorized(f"The SSO token's identity is unusable: {exc.message}") from None
    return user, await issue_session(uow, user_id=user.id, ttl=ttl)


async def authenticate(uow: UnitOfWork, *, secret: str | None) -> Actor:
    """The user behind a session or token; slides a session's expiry forward."""
    actor, _row = await _admit(uow, secret, _CALLER, {})
    return actor


async def authenticate_in_channel(
    uow: UnitOfWork, *, secret: str | None, team_id: str, channel_id: str
) -> tuple[Actor, ChannelScope]:
    """The caller and the channel they act in, read in one statement (every channel request)."""
    params = {"team": team_id, "channel": channel_id}
    actor, row = await _admit(uow, secret, _CALLER_IN_CHANNEL, params)
    return actor, admit_to_channel(row, team_id=team_id, channel_id=channel_id)


async def _admit(
    uow: UnitOfWork, secret: str | None, lookup: Prepared, params: dict[str, str]
) -> tuple[Actor, Row]:
    """The caller if the secret names a live session or token, and the row read with it."""
    if not secret:
        raise Unauthorized(NO_CREDENTIALS)
    now = uow.clock.now()
    row = await uow.row(lookup, {"token_hash": hash_secret(secret), **params})
    if row is None or row["revoked_at"] is not None or row["expires_at"] <= now:
        raise Unauthorized(BAD_CREDENTIALS)
    if row["sliding_seconds"]:
        slid = now + timedelta(seconds=row["sliding_seconds"])
        if slid - row["expires_at"] >= SLIDE_GRANULARITY:
            await uow.write_apart(
                update(AuthToken).where(AuthToken.id == row["token_id"]).values(expires_at=slid)
            )
    return actor_of_row(row), row


async def revoke(uow: UnitOfWork, *, secret: str) -> None:
    """Revoke the session or token; later requests with it answer 401."""
    await uow.execute(
        update(AuthToken)
        .where(AuthToken.token_hash == hash_secret(secret), AuthToken.revoked_at.is_(None))
        .values(revoked_at=uow.clock.now())
    )


async def _issue(
    uow: UnitOfWork, *, user_id: str, kind: str, ttl: timedelta, sliding: bool
) -> IssuedToken:
    secret = secrets.token_urlsafe(32)
    now = uow.clock.now()
    expires_at = now + ttl
    await uow.execute(
        insert(AuthToken).values(
            id=new_id(),
            token_hash=hash_secret(secret),
            user_id=user_id,
            kind=kind,
            sliding_seconds=int(ttl.total_seconds()) if sliding else None,
            created_at=now,
            expires_at=expires_at,
            revoked_at=None,
        )
    )
    return IssuedToken(secret=secret, expires_at=expires_at)

"""Sessions and API tokens: random secrets, stored hashed, expiring, revocable."""

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import select, update

from bot.auth.schemas import IssuedToken
from bot.db.tables import AuthToken, User
from bot.directory.service import actor_of
from bot.errors import Unauthorized
from bot.ids import new_id
from bot.uow import Actor, UnitOfWork

SESSION = "session"
API_TOKEN = "api"
# A sliding session is pushed forward at most this often, so reads do not all become writes.
SLIDE_GRANULARITY = timedelta(minutes=1)

NO_CREDENTIALS = "Authentication required: send the graphNodeCookie cookie or a Bearer token."
BAD_CREDENTIALS = "The session or token is unknown, expired or revoked."


def hash_secret(secret: str) -> str:
    # Secrets carry 256 random bits, so a plain digest is enough: nothing to brute-force.
    return hashlib.sha256(secret.encode()).hexdigest()


async def issue_session(uow: UnitOfWork, *, user_id: str, ttl: timedelta) -> IssuedToken:
    """A session whose expiry slides forward by `ttl` on use."""
    return await _issue(uow, user_id=user_id, kind=SESSION, ttl=ttl, sliding=True)


async def issue_api_token(uow: UnitOfWork, *, user_id: str, ttl: timedelta) -> IssuedToken:
    """A token for scripts, with a fixed expiry."""
    return await _issue(uow, user_id=user_id, kind=API_TOKEN, ttl=ttl, sliding=False)


async def authenticate(uow: UnitOfWork, *, secret: str | None) -> Actor:
    """The user behind a session or token; slides a session's expiry forward."""
    if not secret:
        raise Unauthorized(NO_CREDENTIALS)
    now = uow.clock.now()
    row = (
        await uow.session.execute(
            select(AuthToken, User)
            .join(User, User.id == AuthToken.user_id)
            .where(AuthToken.token_hash == hash_secret(secret))
        )
    ).first()
    if row is None:
        raise Unauthorized(BAD_CREDENTIALS)
    token, user = row.AuthToken, row.User
    if token.revoked_at is not None or token.expires_at <= now:
        raise Unauthorized(BAD_CREDENTIALS)
    if token.sliding_seconds:
        slid = now + timedelta(seconds=token.sliding_seconds)
        if slid - token.expires_at >= SLIDE_GRANULARITY:
            await uow.session.execute(
                update(AuthToken).where(AuthToken.id == token.id).values(expires_at=slid)
            )
    return actor_of(user)


async def revoke(uow: UnitOfWork, *, secret: str) -> None:
    """Revoke the session or token; later requests with it answer 401."""
    await uow.session.execute(
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
    uow.session.add(
        AuthToken(
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
    await uow.session.flush()
    return IssuedToken(secret=secret, expires_at=expires_at)

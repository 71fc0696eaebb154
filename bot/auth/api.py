"""Auth routes: Teams SSO sign-in, sign-out, and who am I."""

from datetime import timedelta

from aiohttp import web

from bot.auth import service as auth
from bot.auth import sso
from bot.auth.schemas import SsoSignedIn, TeamsSsoIn
from bot.directory.actors import actor_out
from bot.directory.schemas import UserOut
from bot.keys import SSO_KEYS
from bot.web.errors import json_response
from bot.web.routing import COOKIE, Access, Call, RouteTable

routes = RouteTable(tag="auth")


@routes.route(
    "POST",
    "/api/auth/teams-sso",
    access=Access.PUBLIC,
    body=TeamsSsoIn,
    response=SsoSignedIn,
    errors=(401, 403, 409),
    summary="Exchange a Microsoft Entra ID token from Teams for a session (cookie and token)",
)
async def teams_sso(call: Call) -> web.Response:
    settings = call.settings
    identity = await sso.verify_teams_token(
        call.body.token,
        keys=call.request.app[SSO_KEYS],
        issuer_template=settings.sso_issuer,
        audiences=settings.sso_audiences,
        clock=call.uow.clock,
    )
    user, session = await auth.sign_in_with_sso(
        call.uow,
        identity=identity,
        allowed_tenants=settings.sso_allowed_tenants,
        ttl=timedelta(seconds=settings.session_ttl),
    )
    signed_in = SsoSignedIn(**user.model_dump(), session_token=session.secret)
    response = json_response(signed_in.model_dump(mode="json"))
    response.set_cookie(
        COOKIE,
        session.secret,
        max_age=settings.session_ttl,
        path="/",
        httponly=True,
        secure=True,
        samesite="None",
    )
    return response


@routes.route(
    "DELETE",
    "/api/auth/session",
    access=Access.USER,
    status=204,
    summary="Sign out: revoke the session or token this request carries",
)
async def sign_out(call: Call) -> web.Response:
    secret = call.credentials
    assert secret is not None  # authenticated above
    await auth.revoke(call.uow, secret=secret)
    response = web.Response(status=204)
    response.del_cookie(COOKIE, path="/")
    return response


@routes.route("GET", "/api/me", access=Access.USER, response=UserOut, summary="The signed-in user")
async def me(call: Call) -> UserOut:
    return actor_out(call.actor)

"""Request and response bodies of the auth endpoints and the CLI."""

from pydantic import Field

from bot.directory.schemas import UserOut
from bot.schemas import ApiModel, Timestamp


class IssuedToken(ApiModel):
    """A new secret: shown once, stored only as a hash."""

    secret: str
    expires_at: Timestamp


class SessionOut(ApiModel):
    cookie: str = Field(description="Value of the graphNodeCookie cookie")
    expires_at: Timestamp = Field(alias="expiresAt")
    user: UserOut


class SsoSignedIn(UserOut):
    """The signed-in user, and the session's secret for a tab that cannot keep cookies."""

    session_token: str = Field(
        alias="sessionToken",
        description="The session's secret, as the cookie carries it: send it as "
        "`Authorization: Bearer <sessionToken>` where third-party cookies are blocked (Teams "
        "on the web); it expires and slides as the cookie does",
    )


class ApiTokenOut(ApiModel):
    token: str = Field(description="Send as `Authorization: Bearer <token>`")
    expires_at: Timestamp = Field(alias="expiresAt")
    user: UserOut


class TeamsSsoIn(ApiModel):
    token: str = Field(
        min_length=1,
        max_length=16384,
        description="Microsoft Entra ID token from the Teams client SDK (getAuthToken)",
    )

"""The SDK's authentication, keeping the clients it builds for each turn.

For every activity the SDK builds a Bot Connector client and a user-token client: an msrest
configuration, a requests session and a retry policy each, a visible share of a list command's
own work. What they are built from (the app id, the service URL, the audience) repeats
from turn to turn, so each is built once and kept. The request is still authenticated by the
SDK on every turn, and the clients carry the SDK's own credentials. Each connector is built to
send in the app's own connector threads (`bot.teams.transport.connector_threads`).
"""

from typing import Any, TypeVar

from botbuilder.integration.aiohttp import ConfigurationBotFrameworkAuthentication
from botbuilder.schema import Activity
from botframework.connector.aio import ConnectorClient
from botframework.connector.auth import (
    AuthenticateRequestResult,
    AuthenticationConstants,
    ClaimsIdentity,
    ConnectorFactory,
    ServiceClientCredentialsFactory,
    UserTokenClient,
)

from bot.teams.transport.connector_threads import ConnectorThreads

# Service URLs come from the activity; past this many, the kept clients start over.
MAX_KEPT = 64

ConnectorKey = tuple[str | None, str, str | None]
K = TypeVar("K")
V = TypeVar("V")


def app_id_of(claims: ClaimsIdentity) -> str | None:
    """The bot's app id as the SDK reads it from a request's claims (audience, else appid)."""
    audience = claims.get_claim_value(AuthenticationConstants.AUDIENCE_CLAIM)
    return audience or claims.get_claim_value(AuthenticationConstants.APP_ID_CLAIM)


class KeptClientsAuthentication(ConfigurationBotFrameworkAuthentication):
    """ConfigurationBotFrameworkAuthentication whose turn clients are built once per input."""

    def __init__(
        self,
        configuration: Any,
        *,
        credentials_factory: ServiceClientCredentialsFactory | None,
        threads: ConnectorThreads,
    ) -> None:
        super().__init__(configuration, credentials_factory=credentials_factory)
        self.threads = threads
        self._connectors: dict[ConnectorKey, ConnectorClient] = {}
        self._token_clients: dict[str | None, UserTokenClient] = {}

    async def authenticate_request(
        self, activity: Activity, auth_header: str
    ) -> AuthenticateRequestResult:
        result = await super().authenticate_request(activity, auth_header)
        if result.connector_factory is not None:
            app_id = app_id_of(result.claims_identity)
            result.connector_factory = _KeptConnectors(
                result.connector_factory, app_id, self._connectors, self.threads
            )
        return result

    async def create_user_token_client(self, claims_identity: ClaimsIdentity) -> UserTokenClient:
        app_id = app_id_of(claims_identity)
        client = self._token_clients.get(app_id)
        if client is None:
            client = await super().create_user_token_client(claims_identity)
            _keep(self._token_clients, app_id, client)
        return client


class _KeptConnectors(ConnectorFactory):
    """The SDK's connector factory for one request, answering from the kept clients first."""

    def __init__(
        self,
        factory: ConnectorFactory,
        app_id: str | None,
        kept: dict[ConnectorKey, ConnectorClient],
        threads: ConnectorThreads,
    ) -> None:
        self._factory, self._app_id, self._kept = factory, app_id, kept
        self._threads = threads

    async def create(self, service_url: str, audience: str | None = None) -> ConnectorClient:
        key = (self._app_id, service_url, audience)
        client = self._kept.get(key)
        if client is None:
            client = self._threads.bound(await self._factory.create(service_url, audience))
            _keep(self._kept, key, client)
        return client


def _keep(kept: dict[K, V], key: K, value: V) -> None:
    if len(kept) >= MAX_KEPT:
        kept.clear()
    kept[key] = value

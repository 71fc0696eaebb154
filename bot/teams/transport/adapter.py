"""The botbuilder CloudAdapter and Bot Framework authentication, built from the settings."""

from dataclasses import dataclass
from types import SimpleNamespace

import aiohttp
from botbuilder.core import TurnContext
from botbuilder.integration.aiohttp import CloudAdapter, ConfigurationBotFrameworkAuthentication
from botbuilder.schema import Activity, ActivityTypes, ResourceResponse
from botframework.connector.aio import ConnectorClient
from botframework.connector.auth import (
    AuthenticateRequestResult,
    AuthenticationConstants,
    CallerIdConstants,
    ServiceClientCredentialsFactory,
)
from msrest.universal_http.requests import ClientRetryPolicy

from bot.clock import Clock
from bot.settings import Settings
from bot.teams.transport import signing_keys
from bot.teams.transport.authentication import KeptClientsAuthentication
from bot.teams.transport.connector_threads import ConnectorThreads
from bot.teams.transport.replies_http import post_activity
from bot.teams.transport.signing_keys import OpenIdKeys

# What the SDK's send_activities handles itself rather than posting.
_NOT_POSTED = {"delay", ActivityTypes.invoke_response, ActivityTypes.trace}


class TrackerAdapter(CloudAdapter):
    """The CloudAdapter, posting a turn's messages with the app's aiohttp session (see
    `replies_http`); everything else (delays, invoke answers, traces, updates) as the SDK does."""

    def __init__(self, auth: ConfigurationBotFrameworkAuthentication, http: aiohttp.ClientSession):
        super().__init__(auth)
        self._http = http

    async def send_activities(
        self, context: TurnContext, activities: list[Activity]
    ) -> list[ResourceResponse]:
        connector = context.turn_state.get(self.BOT_CONNECTOR_CLIENT_KEY)
        if connector is None or any(a.type in _NOT_POSTED for a in activities):
            return await super().send_activities(context, activities)
        responses = []
        for activity in activities:
            activity.id = None
            responses.append(
                await post_activity(
                    self._http,
                    connector.config.credentials,
                    activity,
                    user_agent=connector.config.user_agent,
                )
            )
        return responses


@dataclass
class BotRuntime:
    """The adapter, how it authenticates, and the app id it acts as."""

    adapter: "TrackerAdapter"
    app_id: str
    keys: list[OpenIdKeys]
    threads: ConnectorThreads

    @property
    def verifies_senders(self) -> bool:
        return bool(self.app_id)

    async def authenticate(self, activity: Activity, header: str) -> AuthenticateRequestResult:
        """Validate the request's JWT (any failure raises); without an app id there is none."""
        auth = self.adapter.bot_framework_authentication
        result = await auth.authenticate_request(activity, header if self.app_id else None)
        # The SDK checks `exp` only when present: a token without one would never expire.
        if self.app_id and "exp" not in (result.claims_identity.claims or {}):
            raise PermissionError("the token has no expiry (exp)")
        return result

    async def connector(self, service_url: str) -> ConnectorClient:
        """A Bot Connector client for proactive calls, which the notifier retries by itself."""
        auth = self.adapter.bot_framework_authentication
        claims = self.adapter.create_claims_identity(self.app_id)
        factory = auth.create_connector_factory(claims)
        client = self.threads.bound(
            await factory.create(service_url, auth.get_originating_audience())
        )
        # msrest's own retries would sleep through 502/504 (and a PUT's Retry-After, in a
        # thread) without honouring our pacing. Set on the policy object itself: the client's
        # HTTP session took that object when the client was made, so a new one goes unseen.
        client.config.retry_policy.retries = 0
        return client


def create_runtime(
    settings: Settings,
    http: aiohttp.ClientSession,
    clock: Clock,
    *,
    credentials: ServiceClientCredentialsFactory | None = None,
) -> BotRuntime:
    """The adapter with the public cloud's constants and this app's OpenID metadata URL."""
    keys = [
        OpenIdKeys(http, settings.bot_openid_metadata_url, clock),
        OpenIdKeys(http, AuthenticationConstants.TO_BOT_FROM_EMULATOR_OPENID_METADATA_URL, clock),
    ]
    configuration = SimpleNamespace(
        APP_ID=settings.microsoft_app_id,
        APP_PASSWORD=settings.microsoft_app_password.get_secret_value(),
        APP_TYPE=settings.microsoft_app_type,
        APP_TENANTID=settings.microsoft_app_tenant_id,
        # Any of these makes the SDK use its parameterized authentication, so all are given.
        TO_BOT_FROM_CHANNEL_OPENID_METADATA_URL=keys[0].metadata_url,
        TO_BOT_FROM_EMULATOR_OPENID_METADATA_URL=keys[1].metadata_url,
        TO_BOT_FROM_CHANNEL_TOKEN_ISSUER=AuthenticationConstants.TO_BOT_FROM_CHANNEL_TOKEN_ISSUER,
        TO_CHANNEL_FROM_BOT_LOGIN_URL=AuthenticationConstants.TO_CHANNEL_FROM_BOT_LOGIN_URL_PREFIX,
        TO_CHANNEL_FROM_BOT_OAUTH_SCOPE=AuthenticationConstants.TO_CHANNEL_FROM_BOT_OAUTH_SCOPE,
        OAUTH_URL=AuthenticationConstants.OAUTH_URL,
        CALLER_ID=CallerIdConstants.public_azure_channel,
        VALIDATE_AUTHORITY=True,
    )
    threads = ConnectorThreads(settings.teams_wait_seconds)
    auth = KeptClientsAuthentication(
        configuration, credentials_factory=credentials, threads=threads
    )
    for key_set in keys:
        signing_keys.install(key_set)
    _cheapen_retry_policy()
    return BotRuntime(TrackerAdapter(auth, http), settings.microsoft_app_id, keys, threads)


def _cheapen_retry_policy() -> None:
    """msrest builds every connector client's retry policy (two per turn: the connector and
    the user-token client) with `i not in safe_codes` for 999 codes over a 502-entry list, a
    linear search each. The same codes as a frozenset give the same policy far cheaper."""
    if not isinstance(ClientRetryPolicy.safe_codes, frozenset):
        ClientRetryPolicy.safe_codes = frozenset(ClientRetryPolicy.safe_codes)  # type: ignore[assignment]


def dispose_runtime(runtime: BotRuntime) -> None:
    for key_set in runtime.keys:
        signing_keys.uninstall(key_set)
    runtime.threads.close()

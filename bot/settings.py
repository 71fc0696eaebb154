"""All configuration in one object, read from the environment and `.env`, passed in."""

import ipaddress
import secrets
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PLACEHOLDER_SECRETS = {"changeme", "change-me", "secret", "password", "your-secret-key"}
MIN_SECRET_LENGTH = 32
MAX_DUE_SOON_MINUTES = 90 * 24 * 60  # a due-soon window of at most 90 days
MAX_DIGEST_SECONDS = 3600  # a digest window of at most an hour
MAX_DIGEST_THRESHOLD = 1000


class SettingsError(Exception):
    """A setting that stops start-up; the message is one line naming the setting."""


def _comma_list(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", case_sensitive=False, populate_by_name=True
    )

    database_url: str = Field("sqlite+aiosqlite:///./data/app.db", alias="DATABASE_URL")
    host: str = Field("127.0.0.1", alias="HOST")
    port: int = Field(3978, alias="PORT", ge=1, le=65535)
    public_url: str = Field(
        "", alias="PUBLIC_URL", description="Base of @odata links; default http://HOST:PORT"
    )
    data_dir: Path = Field(Path("./data"), alias="DATA_DIR")
    session_ttl: int = Field(
        8 * 3600, alias="SESSION_TTL", ge=60, description="Sliding session lifetime, seconds"
    )
    api_token_ttl_days: int = Field(90, alias="API_TOKEN_TTL_DAYS", ge=1, le=3650)
    secret_key: SecretStr | None = Field(None, alias="SECRET_KEY")
    seed_demo: bool | None = Field(
        None, alias="SEED_DEMO", description="Default: on for SQLite, off for PostgreSQL"
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO", alias="LOG_LEVEL")
    log_format: Literal["text", "json"] = Field(
        "text",
        alias="LOG_FORMAT",
        description="Log lines as readable text, or as one JSON object per line (bot.logs)",
    )
    metrics_enabled: bool = Field(
        True,
        alias="METRICS_ENABLED",
        description="Serve /metrics and count requests and background outcomes for it",
    )
    metrics_token: SecretStr | None = Field(
        None,
        alias="METRICS_TOKEN",
        description="When set, /metrics answers only `Authorization: Bearer <token>`",
    )
    ready_worker_stall_seconds: float = Field(
        120.0,
        alias="READY_WORKER_STALL_SECONDS",
        gt=0,
        description="/readyz fails when the job worker has taken no turn for this long, past "
        "its poll interval (an idle worker turns once a poll)",
    )
    ready_event_backlog_seconds: float = Field(
        300.0,
        alias="READY_EVENT_BACKLOG_SECONDS",
        gt=0,
        description="/readyz fails when the oldest unprocessed pending event is this old",
    )

    sso_jwks_url: str = Field(
        "https://login.microsoftonline.com/common/discovery/v2.0/keys", alias="SSO_JWKS_URL"
    )
    sso_issuer: str = Field("https://login.microsoftonline.com/{tenantid}/v2.0", alias="SSO_ISSUER")
    sso_audience: Annotated[list[str], NoDecode] = Field(default_factory=list, alias="SSO_AUDIENCE")
    sso_allowed_tenants: Annotated[list[str], NoDecode] = Field(
        default_factory=list, alias="SSO_ALLOWED_TENANTS"
    )

    allow_unverified_bot: bool = Field(False, alias="ALLOW_UNVERIFIED_BOT")
    microsoft_app_id: str = Field("", alias="MicrosoftAppId")
    microsoft_app_password: SecretStr = Field(SecretStr(""), alias="MicrosoftAppPassword")
    microsoft_app_type: Literal["MultiTenant", "SingleTenant", "UserAssignedMSI"] = Field(
        "MultiTenant", alias="MicrosoftAppType"
    )
    microsoft_app_tenant_id: str = Field("", alias="MicrosoftAppTenantId")
    bot_openid_metadata_url: str = Field(
        "https://login.botframework.com/v1/.well-known/openidconfiguration",
        alias="BOT_OPENID_METADATA_URL",
        description="Where the keys that sign the Bot Framework's requests are published",
    )
    query_timeout_seconds: float = Field(
        5.0,
        alias="QUERY_TIMEOUT_SECONDS",
        gt=0,
        le=3600,
        description="How long one database statement may run before it is stopped (503)",
    )
    lists_in_flight: int = Field(
        4,
        alias="LISTS_IN_FLIGHT",
        ge=1,
        le=1000,
        description="List and personal-view requests one session or token may have running (429)",
    )
    body_read_timeout_seconds: float = Field(
        30.0,
        alias="BODY_READ_TIMEOUT_SECONDS",
        gt=0,
        description="How long a request's body may take to arrive before the answer is 408",
    )
    keepalive_seconds: float = Field(
        15.0,
        alias="KEEPALIVE_SECONDS",
        gt=0,
        le=3600,
        description="How long a connection may go without sending a complete request (its "
        "line and headers), since it opened or since its last answer, before it is closed",
    )
    jobs_poll_seconds: float = Field(
        1.0,
        alias="JOBS_POLL_SECONDS",
        ge=0,
        description="How often the in-process worker looks for due jobs; 0 runs no worker",
    )
    teams_wait_seconds: float = Field(
        10.0,
        alias="TEAMS_WAIT_SECONDS",
        gt=0,
        le=60,
        description="How long starting a discussion or posting a comment waits for Teams (502); "
        "no call to Teams waits longer",
    )
    jobs_concurrency: int = Field(
        32,
        alias="JOBS_CONCURRENCY",
        ge=1,
        le=1000,
        description="Background jobs one process runs at once (webhooks, Teams sends)",
    )
    webhook_concurrency: int = Field(
        16,
        alias="WEBHOOK_CONCURRENCY",
        ge=1,
        le=1000,
        description="Webhook requests one process has in flight, all receivers together",
    )
    webhook_per_host: int = Field(
        8,
        alias="WEBHOOK_PER_HOST",
        ge=1,
        le=1000,
        description="Webhook requests one process has in flight to one receiver host",
    )
    webhook_timeout_seconds: float = Field(
        15.0,
        alias="WEBHOOK_TIMEOUT_SECONDS",
        gt=0,
        le=30,
        description="How long a webhook receiver may take to answer before the try is retried",
    )
    webhook_allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        alias="WEBHOOK_ALLOWED_HOSTS",
        description="Host names, addresses or networks webhooks may reach even when not public",
    )
    sync_allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        alias="SYNC_ALLOWED_HOSTS",
        description="Host names, addresses or networks of synced sources reached even when not "
        "public, and the hosts plain http may reach",
    )
    entra_authority_url: str = Field(
        "https://login.microsoftonline.com",
        alias="ENTRA_AUTHORITY_URL",
        description="Where Planner projects get their Microsoft Graph tokens "
        "(POST {this}/{tenant}/oauth2/v2.0/token), under SYNC_ALLOWED_HOSTS' address rule",
    )
    files_dir: Path | None = Field(
        None, alias="FILES_DIR", description="Where attachments are stored; default DATA_DIR/files"
    )
    max_upload_bytes: int = Field(
        25 * 1024 * 1024,
        alias="MAX_UPLOAD_BYTES",
        ge=1,
        description="The largest attachment accepted, in bytes (413 above)",
    )
    download_link_seconds: int = Field(
        15 * 60,
        alias="DOWNLOAD_LINK_SECONDS",
        ge=1,
        le=7 * 24 * 3600,
        description="How long an attachment's signed download link works",
    )
    download_signing_key: SecretStr | None = Field(
        None,
        alias="DOWNLOAD_SIGNING_KEY",
        description="HMAC key of download links; default one derived from SECRET_KEY",
    )
    due_soon_minutes: int = Field(
        24 * 60,
        alias="DUE_SOON_MINUTES",
        ge=1,
        le=MAX_DUE_SOON_MINUTES,
        description="How long before its due date an item is due soon, unless its channel says",
    )
    changes_keep_alive_seconds: float = Field(
        15.0,
        alias="CHANGES_KEEP_ALIVE_SECONDS",
        gt=0,
        le=300,
        description="How often an open change stream sends a keep-alive comment (and looks "
        "at its channel's versions, whatever woke it)",
    )
    thread_coalesce_seconds: float = Field(
        2.0,
        alias="THREAD_COALESCE_SECONDS",
        ge=0,
        le=3600,
        description="How long an item's thread gathers changes into one card update and reply",
    )
    notify_digest_seconds: int = Field(
        5,
        alias="NOTIFY_DIGEST_SECONDS",
        ge=0,
        le=MAX_DIGEST_SECONDS,
        description="A channel's digest window, unless it sets its own (0: no digests)",
    )
    notify_digest_threshold: int = Field(
        5,
        alias="NOTIFY_DIGEST_THRESHOLD",
        ge=1,
        le=MAX_DIGEST_THRESHOLD,
        description="More items than this told within the window become one digest card",
    )
    shutdown_seconds: float = Field(
        20.0,
        alias="SHUTDOWN_SECONDS",
        ge=0,
        le=600,
        description="On SIGTERM, how long in-flight requests and jobs get to end",
    )
    due_sweep_seconds: float = Field(
        60.0,
        alias="DUE_SWEEP_SECONDS",
        gt=0,
        le=3600,
        description="How often the due-soon and overdue sweep runs",
    )

    _split_lists = field_validator(
        "sso_audience",
        "sso_allowed_tenants",
        "webhook_allowed_hosts",
        "sync_allowed_hosts",
        mode="before",
    )(_comma_list)

    @field_validator("webhook_allowed_hosts", "sync_allowed_hosts")
    @classmethod
    def _hosts_or_networks(cls, value: list[str]) -> list[str]:
        for entry in value:
            if "/" in entry:
                try:
                    ipaddress.ip_network(entry, strict=False)
                except ValueError:
                    raise ValueError(f"'{entry}' is not a network") from None
        return value

    @field_validator("database_url")
    @classmethod
    def _known_driver(cls, value: str) -> str:
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError("use sqlite+aiosqlite:///path or postgresql+asyncpg://user@host/db")
        return value

    @field_validator("public_url")
    @classmethod
    def _absolute_url(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must be an absolute http(s) URL")
        return value.rstrip("/")

    @field_validator("bot_openid_metadata_url")
    @classmethod
    def _metadata_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an absolute http(s) URL")
        return value

    @field_validator("sso_issuer")
    @classmethod
    def _issuer_template(cls, value: str) -> str:
        if "{tenantid}" not in value:
            raise ValueError("must contain the {tenantid} placeholder")
        return value

    @field_validator("secret_key", "download_signing_key", "metrics_token")
    @classmethod
    def _real_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value():
            return None
        raw = value.get_secret_value()
        if raw.lower() in PLACEHOLDER_SECRETS or len(raw) < MIN_SECRET_LENGTH:
            raise ValueError(f"must be a random value of at least {MIN_SECRET_LENGTH} characters")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "Settings":
        if not self.public_url:
            self.public_url = f"http://{self.host}:{self.port}"
        if self.microsoft_app_type == "SingleTenant" and not self.microsoft_app_tenant_id:
            raise ValueError("MicrosoftAppTenantId: required when MicrosoftAppType is SingleTenant")
        if not self.microsoft_app_id and not self.allow_unverified_bot and not self.is_loopback:
            raise ValueError(
                "MicrosoftAppId: required when HOST is not a loopback address "
                "(or set ALLOW_UNVERIFIED_BOT=true for a test rig)"
            )
        if self.webhook_per_host > self.webhook_concurrency:
            raise ValueError("WEBHOOK_PER_HOST: must not exceed WEBHOOK_CONCURRENCY")
        return self

    @property
    def attachments_dir(self) -> Path:
        """FILES_DIR, else DATA_DIR/files."""
        return self.files_dir if self.files_dir is not None else self.data_dir / "files"

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def is_loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    @property
    def should_seed_demo(self) -> bool:
        return self.is_sqlite if self.seed_demo is None else self.seed_demo

    @property
    def sso_audiences(self) -> list[str]:
        """Accepted `aud` values: SSO_AUDIENCE, else the bot's app id."""
        if self.sso_audience:
            return self.sso_audience
        return [self.microsoft_app_id] if self.microsoft_app_id else []

    def secret(self) -> str:
        if self.secret_key is None:
            raise SettingsError("SECRET_KEY: not loaded; call ensure_secret_key() at start-up")
        return self.secret_key.get_secret_value()


def load_settings(**overrides: object) -> Settings:
    """Read the settings, turning a validation failure into one line naming the setting."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ".".join(str(part) for part in first["loc"]) or "settings"
        message = first["msg"].removeprefix("Value error, ")
        if ": " in message and not first["loc"]:
            raise SettingsError(f"Invalid setting {message}") from None
        raise SettingsError(f"Invalid setting {name}: {message}") from None


def ensure_secret_key(settings: Settings) -> Settings:
    """SECRET_KEY, or on a local SQLite start one generated once into DATA_DIR."""
    if settings.secret_key is not None:
        return settings
    if not settings.is_sqlite:
        raise SettingsError("Invalid setting SECRET_KEY: required with PostgreSQL")
    path = settings.data_dir / "secret_key"
    if not path.exists():
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return settings.model_copy(update={"secret_key": SecretStr(path.read_text().strip())})

"""Settings: defaults that run locally, and one clear line for each bad value."""

from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError, ensure_secret_key, load_settings

GOOD_SECRET = "s" * 40


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No developer `.env` or exported variable leaks into these tests."""
    monkeypatch.chdir(tmp_path)
    for name in (
        "DATABASE_URL",
        "HOST",
        "PORT",
        "SECRET_KEY",
        "MicrosoftAppId",
        "SSO_AUDIENCE",
        "SSO_ALLOWED_TENANTS",
        "PUBLIC_URL",
        "ALLOW_UNVERIFIED_BOT",
        "DATA_DIR",
    ):
        monkeypatch.delenv(name, raising=False)


def test_defaults_run_on_one_machine() -> None:
    settings = load_settings()
    assert settings.database_url == "sqlite+aiosqlite:///./data/app.db"
    assert (settings.host, settings.port) == ("127.0.0.1", 3978)
    assert settings.public_url == "http://127.0.0.1:3978"
    assert settings.session_ttl == 8 * 3600
    assert settings.should_seed_demo


def test_environment_and_dotenv_are_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("PORT=4000\nSSO_ALLOWED_TENANTS=t1, t2\n")
    monkeypatch.setenv("MicrosoftAppId", "app-id")
    settings = load_settings()
    assert settings.port == 4000
    assert settings.sso_allowed_tenants == ["t1", "t2"]
    assert settings.microsoft_app_id == "app-id"
    assert settings.sso_audiences == ["app-id"]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("PORT", "http", "Invalid setting PORT: Input should be a valid integer"),
        ("PORT", "70000", "Invalid setting PORT: Input should be less than or equal to 65535"),
        ("DATABASE_URL", "mysql://x", "Invalid setting DATABASE_URL: use sqlite+aiosqlite:"),
        ("SESSION_TTL", "5", "Invalid setting SESSION_TTL: Input should be greater than or equal"),
        ("SECRET_KEY", "changeme", "Invalid setting SECRET_KEY: must be a random value"),
        (
            "SSO_ISSUER",
            "https://login/x",
            "Invalid setting SSO_ISSUER: must contain the {tenantid}",
        ),
        ("PUBLIC_URL", "example.com", "Invalid setting PUBLIC_URL: must be an absolute"),
        ("MicrosoftAppType", "Other", "Invalid setting MicrosoftAppType: Input should be"),
        ("METRICS_TOKEN", "short", "Invalid setting METRICS_TOKEN: must be a random value"),
        ("LOG_FORMAT", "xml", "Invalid setting LOG_FORMAT: Input should be 'text' or 'json'"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as refused:
        load_settings()
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)


def test_single_tenant_needs_its_tenant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MicrosoftAppType", "SingleTenant")
    with pytest.raises(SettingsError, match="^Invalid setting MicrosoftAppTenantId: required"):
        load_settings()


def test_a_receivers_share_of_webhook_sends_fits_in_the_total(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WEBHOOK_PER_HOST", "20")
    with pytest.raises(SettingsError, match="^Invalid setting WEBHOOK_PER_HOST: must not exceed"):
        load_settings()
    monkeypatch.setenv("WEBHOOK_CONCURRENCY", "20")
    assert load_settings().webhook_per_host == 20


def test_unverified_bot_must_stay_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOST", "0.0.0.0")
    with pytest.raises(SettingsError, match="^Invalid setting MicrosoftAppId: required"):
        load_settings()
    monkeypatch.setenv("ALLOW_UNVERIFIED_BOT", "true")
    assert load_settings().host == "0.0.0.0"


def test_local_secret_key_is_generated_once(tmp_path: Path) -> None:
    settings = load_settings(DATA_DIR=tmp_path / "data")
    first = ensure_secret_key(settings).secret()
    second = ensure_secret_key(settings).secret()
    assert first == second and len(first) >= 32
    assert (tmp_path / "data" / "secret_key").stat().st_mode & 0o777 == 0o600


def test_postgresql_requires_a_secret_key() -> None:
    settings = load_settings(DATABASE_URL="postgresql+asyncpg://postgres@127.0.0.1/app")
    assert not settings.should_seed_demo
    with pytest.raises(
        SettingsError, match="^Invalid setting SECRET_KEY: required with PostgreSQL"
    ):
        ensure_secret_key(settings)


def test_a_given_secret_key_is_used_as_is() -> None:
    settings = ensure_secret_key(Settings(SECRET_KEY=GOOD_SECRET))  # type: ignore[call-arg]
    assert settings.secret() == GOOD_SECRET

"""The bot endpoint's log lines: one access line per activity, naming the roster user and the
channel a command ran for; no Authorization value, valid or not, in any line."""

from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import Channel
from bot.directory.users import find_user
from tests.auth.jwks import SigningKey
from tests.factories import CHANNEL, Factory
from tests.logged import captured
from tests.teams.activities import ADA, BotFrameworkIssuer, installed, mention
from tests.teams.conftest import CONNECTOR_TOKEN
from tests.teams.test_endpoint_auth import CASES, bad_headers, post_signed


async def test_no_authorization_value_is_logged_and_a_turn_names_its_user_and_channel(
    verified_bot: TestClient,
    issuer: BotFrameworkIssuer,
    service_url: str,
    factory: Factory,
    bot_key: SigningKey,
) -> None:
    valid = [f"Bearer {issuer.token(service_url)}" for _ in range(2)]
    refused = bad_headers(issuer, service_url, SigningKey.generate(bot_key.kid))
    with captured() as out:
        for activity, authorization in (
            (installed(service_url), valid[0]),
            (mention(service_url, "help"), valid[1]),
        ):
            response = await post_signed(verified_bot, activity, authorization)
            assert response.status == 200, await response.text()
        for case in CASES:
            response = await post_signed(verified_bot, installed(service_url), refused[case])
            assert response.status == 401

    written = out.everything()
    sent = [value for value in (*valid, *refused.values()) if value]
    secrets = {part for value in sent for part in value.split(" ")} - {"Bearer", "Basic"}
    # A token's signature alone (an unsigned one has none).
    secrets |= {value.rsplit(".", 1)[-1] for value in sent if value.count(".") == 2}
    secrets.add(CONNECTOR_TOKEN)  # the bot's own token, on its calls to the connector
    assert sorted(secret for secret in secrets if secret and secret in written) == []

    lines = out.of("bot.access")
    assert [line["status"] for line in lines] == [200, 200] + [401] * len(CASES)
    assert {line["route"] for line in lines} == {"/api/messages"}
    async with factory.work(write=False) as uow:
        ada = await find_user(uow, ref=ADA.object_id)
        channel_id = await uow.value(select(Channel.id).where(Channel.teams_id == CHANNEL))
    assert ada is not None
    assert (lines[1]["user_id"], lines[1]["channel_id"]) == (ada.id, channel_id)

"""Where a source lives: a project's `hostname` as a base URL, under the webhooks' address rule.

`hostname` is a bare host (https implied) or a URL with scheme, host, port and path
(`https://dev.azure.com/contoso`). Plain http, and hosts that are not global unicast, are let
through only when on `SYNC_ALLOWED_HOSTS`; the check is made on save (`check_source`) and again
on every request by the HTTP client `source_http` makes (its resolver refuses such hosts).
"""

import aiohttp
from yarl import URL

from bot.events import ssrf

FIELD = "hostname"
TIMEOUT_SECONDS = 30.0  # one request to a source, connection to the end of its answer


def base_url(hostname: str, allowed: ssrf.AllowList) -> URL:
    """The source's base URL, without a trailing slash (DestinationRefused when refused)."""
    written = hostname.strip()
    if "://" not in written:
        written = f"https://{written}"
    try:
        url = URL(written)
    except (TypeError, ValueError):
        raise ssrf.DestinationRefused("must be a host or an http(s) URL", field=FIELD) from None
    try:
        host, address = ssrf.check_url(str(url), allowed)
    except ssrf.DestinationRefused as refused:
        raise ssrf.DestinationRefused(refused.why_said, field=FIELD) from None
    listed = allowed.has_name(host) or (address is not None and allowed.has_address(address))
    if url.scheme == "http" and not listed:
        raise ssrf.DestinationRefused(
            "must use https (plain http only for hosts on SYNC_ALLOWED_HOSTS)", field=FIELD
        )
    if url.query_string or url.fragment:
        raise ssrf.DestinationRefused("must not carry a query or fragment", field=FIELD)
    return url.with_path(url.path.rstrip("/") or "/")


async def check_source(hostname: str, allowed: ssrf.AllowList) -> URL:
    """`base_url`, and the host's every address checked now (at save)."""
    url = base_url(hostname, allowed)
    try:
        await ssrf.check_destination(str(url), allowed)
    except ssrf.DestinationRefused as refused:
        raise ssrf.DestinationRefused(refused.why_said, field=FIELD) from None
    return url


def source_http(allowed: ssrf.AllowList) -> aiohttp.ClientSession:
    """The HTTP client connectors share: every connection through the SSRF guard."""
    return aiohttp.ClientSession(
        connector=ssrf.client_connector(allowed),
        timeout=aiohttp.ClientTimeout(total=TIMEOUT_SECONDS),
    )

"""Where webhooks may go: absolute http(s) URLs whose every address is global unicast.

Checked when a definition is saved (`check_destination`) and again when it sends
(`client_connector`): the connector's resolver refuses a host when any address it resolves to is
refused, and the connection goes to one of the addresses just checked, so a name that changes its
answer between the two (DNS rebinding) gains nothing. `WEBHOOK_ALLOWED_HOSTS` names the hosts,
addresses and networks let through anyway (tests reach 127.0.0.1 this way).
"""

import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network
from typing import Any

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver
from yarl import URL

from bot.errors import Invalid

Address = IPv4Address | IPv6Address

# Cloud instance metadata services that are not already link-local or private.
_METADATA = {
    ip_address("169.254.169.254"),
    ip_address("169.254.170.2"),
    ip_address("100.100.100.200"),
    ip_address("fd00:ec2::254"),
}
_CGNAT = ip_network("100.64.0.0/10")
_THIS_NETWORK = ip_network("0.0.0.0/8")
_NAT64 = ip_network("64:ff9b::/96")
_TEREDO = ip_network("2001::/32")
_UNIQUE_LOCAL = ip_network("fc00::/7")


class DestinationRefused(Invalid):
    """A webhook URL the service will not call; the message says why."""

    def __init__(self, why: str, *, field: str = "action.url") -> None:
        super().__init__(field, why)


@dataclass(frozen=True)
class AllowList:
    """Hosts (by name), addresses and networks a webhook may reach whatever they are."""

    names: frozenset[str] = frozenset()
    networks: tuple[IPv4Network | IPv6Network, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> "AllowList":
        names: set[str] = set()
        networks: list[IPv4Network | IPv6Network] = []
        for entry in entries:
            try:
                networks.append(ip_network(entry.strip(), strict=False))
            except ValueError:
                names.add(_host_key(entry))
        return cls(frozenset(names), tuple(networks))

    def has_name(self, host: str) -> bool:
        return _host_key(host) in self.names

    def has_address(self, address: Address) -> bool:
        return any(address in network for network in self.networks)


def refusal(address: Address) -> str | None:
    """Why `address` may not be called, or None when it is global unicast."""
    if isinstance(address, IPv6Address):
        return _refusal_v6(address)
    if address in _METADATA:
        return "a cloud metadata address"
    if address.is_loopback:
        return "loopback"
    if address in _THIS_NETWORK:
        return "'this network' (0.0.0.0/8)"
    if address.is_link_local:
        return "link-local"
    if address in _CGNAT:
        return "shared address space (CGNAT, 100.64.0.0/10)"
    if address.is_multicast:
        return "multicast"
    if address.is_reserved:
        return "reserved"
    if address.is_private or not address.is_global:
        return "private or special-purpose"
    return None


def _refusal_v6(address: IPv6Address) -> str | None:
    address = IPv6Address(int(address))  # without a zone (%eth0), which comparisons mind
    if address in _METADATA:
        return "a cloud metadata address"
    if address.is_loopback:
        return "loopback"
    if address.is_unspecified:
        return "unspecified"
    embedded = _embedded_v4(address)
    if embedded is not None:
        form, inner = embedded
        why = refusal(inner)
        if why is not None or form in ("IPv4-mapped", "IPv4-compatible"):
            return f"{form} IPv6 embedding {inner}" + (f" ({why})" if why else "")
        return None
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address in _UNIQUE_LOCAL:
        return "unique-local (fc00::/7)"
    if address.is_site_local or address.is_private or address.is_reserved:
        return "reserved"
    if not address.is_global:
        return "not global unicast"
    return None


def _embedded_v4(address: IPv6Address) -> tuple[str, IPv4Address] | None:
    """The IPv4 address an IPv6 one carries, and the form that carries it."""
    if address.ipv4_mapped is not None:
        return "IPv4-mapped", address.ipv4_mapped
    if int(address) >> 32 == 0:  # ::a.b.c.d (:: and ::1 were judged before)
        return "IPv4-compatible", IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _NAT64:
        return "NAT64", IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return "6to4", address.sixtofour
    if address in _TEREDO and address.teredo is not None:
        server, client = address.teredo
        return "Teredo", client if refusal(client) is not None else server
    return None


def literal_address(host: str) -> Address | None:
    """The address a host written as one means, in every spelling a resolver would take:
    `127.0.0.1`, `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`, `::1`."""
    try:
        return ip_address(host)
    except ValueError:
        pass
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    try:
        numbers = [int(part, 0) if not _octal(part) else int(part, 8) for part in parts]
    except ValueError:
        return None
    *head, last = numbers
    if any(not 0 <= n <= 255 for n in head) or not 0 <= last < 256 ** (5 - len(parts)):
        return None
    value = last
    for shift, number in enumerate(reversed(head), start=5 - len(parts)):
        value |= number << (8 * shift)
    return IPv4Address(value)


def _octal(part: str) -> bool:
    return len(part) > 1 and part.startswith("0") and part[1:2] not in ("x", "X")


def check_url(url: str, allowed: AllowList) -> tuple[str, Address | None]:
    """The URL's host, and its address when written as one; refused when the URL is not an
    absolute http(s) URL without userinfo, or names a refused address."""
    try:
        parsed = URL(url)
    except (TypeError, ValueError):
        raise DestinationRefused("must be an absolute http(s) URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.raw_host:
        raise DestinationRefused("must be an absolute http(s) URL")
    if parsed.raw_user is not None or parsed.raw_password is not None:
        raise DestinationRefused("must not carry a user name or password")
    host = parsed.host or ""
    address = literal_address(host)
    if address is not None and not allowed.has_name(host):
        shown = host if host == str(address) else f"{host} means {address}, which"
        _check_address(shown, address, allowed)
        if isinstance(address, IPv4Address) and host != str(address):
            raise DestinationRefused(f"write the address '{host}' as {address}")
    return host, address


def _check_address(shown: str, address: Address, allowed: AllowList) -> None:
    """Refuse `address` (`shown` as the message's subject) unless allowed or global unicast."""
    if allowed.has_address(address):
        return
    why = refusal(address)
    if why is not None:
        raise DestinationRefused(f"{shown} is {why}, not a global unicast address")


class GuardedResolver(AbstractResolver):
    """The default resolver, refusing a host when any address it resolves to is refused."""

    def __init__(self, allowed: AllowList, inner: AbstractResolver | None = None) -> None:
        self.allowed = allowed
        self._inner = inner or DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        # A failed lookup stays an OSError: at send time it is a network error, retried.
        found = await self._inner.resolve(host, port, family)
        if not self.allowed.has_name(host):
            for result in found:
                shown = f"{host} resolves to {result['host']}, which"
                _check_address(shown, ip_address(result["host"]), self.allowed)
        return found

    async def close(self) -> None:
        await self._inner.close()


class GuardedConnector(aiohttp.TCPConnector):
    """A TCP connector for webhooks: names through `GuardedResolver`; a host written as an
    address, which aiohttp connects to without asking a resolver, checked here."""

    def __init__(self, allowed: AllowList, **options: Any) -> None:
        super().__init__(resolver=GuardedResolver(allowed), **options)
        self.allowed = allowed

    async def _resolve_host(
        self, host: str, port: int, traces: Sequence[Any] | None = None
    ) -> list[ResolveResult]:
        if literal_address(host) is not None:
            check_url(f"http://{_bracketed(host)}/", self.allowed)
        return await super()._resolve_host(host, port, traces)


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def client_connector(allowed: AllowList, **options: Any) -> aiohttp.TCPConnector:
    """The connector every webhook request goes through."""
    return GuardedConnector(allowed, **options)


async def check_destination(
    url: str, allowed: AllowList, *, resolver: AbstractResolver | None = None
) -> None:
    """Refuse `url` (DestinationRefused, naming the reason) unless every address it reaches
    is global unicast or allowed; names are resolved for both address families."""
    host, address = check_url(url, allowed)
    if address is not None or allowed.has_name(host):
        return
    guard = GuardedResolver(allowed, resolver)
    try:
        await guard.resolve(host, 0, socket.AF_UNSPEC)
    except OSError as exc:
        raise DestinationRefused(f"{host} does not resolve ({exc.strerror or exc})") from None
    finally:
        if resolver is None:
            await guard.close()


def _host_key(host: str) -> str:
    return host.strip().lower().rstrip(".")

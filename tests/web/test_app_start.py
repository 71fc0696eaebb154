"""`python app.py` (what `make run` runs) as a newcomer meets it: a busy port is one line and a
non-zero exit, as a bad setting is; the demo's start banner says how to sign in and prints no
session of its own."""

import re
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.docs.test_guide_walkthrough import (
    free_port,
    fresh_environment,
    launch,
    wait_until_ready,
)

# Only a guard, so that an app that does not stop fails the test instead of stalling it.
EXIT_GUARD_SECONDS = 60


def test_a_busy_port_is_one_line_and_a_non_zero_exit(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        server, log = launch(tmp_path, fresh_environment(tmp_path, port))
        code = server.wait(timeout=EXIT_GUARD_SECONDS)

    assert code == 2
    assert log.read_text().splitlines() == [
        f"Invalid setting PORT: 127.0.0.1:{port} is in use by another program; "
        "stop it or choose another PORT"
    ]


@contextmanager
def serving(workdir: Path, **settings: str) -> Iterator[tuple[str, str]]:
    """The base URL of `python app.py` serving the demo on SQLite, and what it printed."""
    port = free_port()
    server, log = launch(workdir, {**fresh_environment(workdir, port), **settings})
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(base, server, log)
        yield base, log.read_text()
    finally:
        server.terminate()
        server.wait(timeout=EXIT_GUARD_SECONDS)


@pytest.fixture
def banner(tmp_path: Path) -> Iterator[tuple[str, str]]:
    with serving(tmp_path) as served:
        yield served


def test_the_demo_banner_says_how_to_sign_in_and_holds_no_session(
    banner: tuple[str, str],
) -> None:
    base, output = banner
    assert "Demo ready: team 19:demo-team@thread.tacv2, channel 19:demo-bugs@thread.tacv2" in output
    assert "python -m bot admin demo" in output
    for cookie in re.findall(r"graphNodeCookie=([^'\"\s;]+)", output):
        request = urllib.request.Request(
            f"{base}/api/me", headers={"Cookie": f"graphNodeCookie={cookie}"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        refused.value.close()
        assert refused.value.code == 401, f"the banner printed a working session: {cookie}"


def read_until_closed(connection: socket.socket) -> bytes:
    """What the server sends on `connection` until it closes it (timing out fails the test)."""
    connection.settimeout(EXIT_GUARD_SECONDS)
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def test_connections_that_send_no_complete_request_are_closed(tmp_path: Path) -> None:
    with serving(tmp_path, KEEPALIVE_SECONDS="1") as (base, _):
        address = ("127.0.0.1", int(base.rsplit(":", 1)[1]))
        with socket.create_connection(address) as idle:
            assert read_until_closed(idle) == b""
        with socket.create_connection(address) as slow:
            slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: tracker\r\n")  # headers never end
            assert read_until_closed(slow) == b""
        with socket.create_connection(address) as kept:  # idle after an answer
            kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: tracker\r\n\r\n")
            assert read_until_closed(kept).startswith(b"HTTP/1.1 200")

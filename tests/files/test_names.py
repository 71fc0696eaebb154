"""What a stored name and type may be, whatever an upload claims."""

import pytest

from bot.files.names import stored_name, stored_type


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("report.pdf", "report.pdf"),
        ("C:\\Users\\ada\\Desktop\\report.pdf", "report.pdf"),
        ("../../.ssh/authorized_keys", "authorized_keys"),
        ("a/b\\c/..", "attachment"),
        ("  spaced name.txt  ", "spaced name.txt"),
        ("nul\x00in\x0bside\u200b.txt", "nulinside.txt"),
        (None, "attachment"),
        ("", "attachment"),
        ("\x00\x01", "attachment"),
        ("x" * 300 + ".tar.gz", "x" * 252 + ".gz"),
        # Latin-1 bytes, as aiohttp hands on a part header that is not UTF-8 (lone surrogates):
        # each such byte is U+FFFD, the replacement character.
        ("\udce9t\udce9.txt", "\ufffdt\ufffd.txt"),
        ("\ud800.txt", "\ufffd.txt"),
    ],
)
def test_stored_name_is_the_base_name_without_control_characters(
    sent: str | None, kept: str
) -> None:
    assert stored_name(sent) == kept
    assert len(stored_name(sent)) <= 255


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("image/PNG", "image/png"),
        ("text/plain; charset=utf-8", "text/plain"),
        ("application/vnd.ms-excel", "application/vnd.ms-excel"),
        ("text/html\r\nX-Injected: 1", "application/octet-stream"),
        ("nonsense", "application/octet-stream"),
        (None, "application/octet-stream"),
    ],
)
def test_stored_type_is_a_plain_media_type(sent: str | None, kept: str) -> None:
    assert stored_type(sent) == kept

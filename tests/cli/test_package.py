"""`python -m bot manifest`: the Teams app package, and its usage errors (no database needed)."""

import json
import zipfile
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.cli.package import MANIFEST_DIR
from tests.cli.helpers import one_json_line
from tests.manifest.test_manifest import schema_errors

APP = "6F1C2A3B-1111-2222-3333-444455556666"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main(["manifest", *argv])
    return code, one_json_line(capsys.readouterr().out)


def test_builds_a_schema_valid_package(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no settings, no database, nothing else written
    code, body = run(capsys, "--app-id", APP, "--domain", "Tracker.Contoso.com", "--out", "app.zip")
    assert code == 0
    app = APP.lower()
    assert body == {"package": "app.zip", "appId": app, "domain": "tracker.contoso.com"}
    assert sorted(path.name for path in tmp_path.iterdir()) == ["app.zip"]
    with zipfile.ZipFile(tmp_path / "app.zip") as package:
        assert sorted(package.namelist()) == ["color.png", "manifest.json", "outline.png"]
        manifest = json.loads(package.read("manifest.json"))
        assert package.read("color.png") == (MANIFEST_DIR / "color.png").read_bytes()
    assert manifest["id"] == manifest["bots"][0]["botId"] == app
    assert manifest["validDomains"] == ["tracker.contoso.com"]
    assert schema_errors(manifest) == []


def test_the_same_inputs_build_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a.zip", "b.zip"):
        assert (
            run(
                capsys, "--app-id", APP, "--domain", "t.contoso.com", "--out", str(tmp_path / name)
            )[0]
            == 0
        )
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (
            ["--domain", "t.contoso.com", "--out", "a.zip"],
            "the following arguments are required: --app-id",
        ),
        (["--app-id", APP, "--out", "a.zip"], "the following arguments are required: --domain"),
        (
            ["--app-id", APP, "--domain", "t.contoso.com"],
            "the following arguments are required: --out",
        ),
        (
            ["--app-id", "not-a-guid", "--domain", "t.contoso.com", "--out", "a.zip"],
            "'not-a-guid' is not a GUID",
        ),
        (["--app-id", APP + "0", "--domain", "t.contoso.com", "--out", "a.zip"], "is not a GUID"),
        (
            ["--app-id", APP, "--domain", "https://t.contoso.com", "--out", "a.zip"],
            "is not a host name",
        ),
        (
            ["--app-id", APP, "--domain", "t.contoso.com/path", "--out", "a.zip"],
            "is not a host name",
        ),
        (["--app-id", APP, "--domain", "localhost", "--out", "a.zip"], "is not a host name"),
        (["--app-id", APP, "--domain", "bad-.contoso.com", "--out", "a.zip"], "is not a host name"),
        (
            ["--app-id", APP, "--domain", "t.contoso.com", "--out", "app.tar"],
            "must name a .zip file",
        ),
        (
            ["--app-id", APP, "--domain", "t.contoso.com", "--out", "missing/dir/a.zip"],
            "does not exist",
        ),
    ],
)
def test_bad_arguments_answer_a_usage_error_and_write_nothing(
    argv: list[str],
    error: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, body = run(capsys, *argv)
    assert code == 2
    assert error in body["error"]
    assert list(tmp_path.iterdir()) == []

"""The Teams app manifest: valid against Microsoft's schema; every command it offers parses."""

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from PIL import Image

from bot.cli.package import MANIFEST_DIR, manifest_for
from bot.teams.commands.grammar import Unknown, parse

ROOT = Path(__file__).resolve().parents[2]
# Installed by `make test` (Makefile: APP_MANIFEST) from the npm package @microsoft/app-manifest.
SCHEMAS = ROOT / ".venv" / "npm" / "node_modules" / "@microsoft" / "app-manifest" / "build"
APP = "6f1c2a3b-1111-2222-3333-444455556666"
HOST = "tracker.contoso.com"


def template() -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((MANIFEST_DIR / "manifest.json").read_text())
    return manifest


def official_schema(version: str) -> dict[str, Any]:
    path = SCHEMAS / "json-schemas" / "teams" / f"v{version}" / "MicrosoftTeams.schema.json"
    assert path.exists(), f"{path} is missing: `make test` installs @microsoft/app-manifest"
    schema: dict[str, Any] = json.loads(path.read_text())
    return schema


def schema_errors(manifest: dict[str, Any]) -> list[str]:
    schema = official_schema(manifest["manifestVersion"])
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = [
        f"{list(error.path)}: {error.message[:200]}" for error in validator.iter_errors(manifest)
    ]
    # Draft 4 has no `const`; the schema pins its version with one, so check it here.
    if manifest["manifestVersion"] != schema["properties"]["manifestVersion"]["const"]:
        errors.append("manifestVersion differs from the schema's")
    return errors


def test_the_manifest_uses_the_latest_released_schema() -> None:
    released = [
        tuple(int(part) for part in folder.name[1:].split("."))
        for folder in (SCHEMAS / "json-schemas" / "teams").iterdir()
        if folder.name[1:2].isdigit()
    ]
    assert template()["manifestVersion"] == ".".join(map(str, max(released)))


@pytest.mark.parametrize("manifest", [template(), manifest_for(template(), app=APP, host=HOST)])
def test_template_and_built_manifest_are_schema_valid(manifest: dict[str, Any]) -> None:
    assert schema_errors(manifest) == []


def test_schema_check_catches_a_broken_manifest() -> None:
    broken = template()
    broken["bots"][0]["scopes"].append("everywhere")
    del broken["developer"]
    assert len(schema_errors(broken)) >= 2


def test_every_offered_command_parses_to_a_known_command() -> None:
    lists = template()["bots"][0]["commandLists"]
    scopes = {scope for entry in lists for scope in entry["scopes"]}
    assert scopes == {"team", "groupChat", "personal"}
    for entry in lists:
        assert 1 <= len(entry["commands"]) <= 10
        for command in entry["commands"]:
            assert not isinstance(parse(command["title"]), Unknown), command["title"]


def test_bot_compose_extensions_and_permissions() -> None:
    manifest = template()
    assert manifest["bots"][0]["scopes"] == ["team", "groupChat", "personal"]
    commands = {c["title"]: c for c in manifest["composeExtensions"][0]["commands"]}
    assert commands["Find a bug"]["type"] == commands["Find a task"]["type"] == "query"
    action = commands["Create a bug from this message"]
    assert (action["type"], action["context"], action["fetchTask"]) == ("action", ["message"], True)
    rsc = manifest["authorization"]["permissions"]["resourceSpecific"]
    assert {"name": "ChannelMessage.Read.Group", "type": "Application"} in rsc


def test_built_manifest_names_the_deployment_everywhere() -> None:
    built = manifest_for(template(), app=APP, host=HOST)
    assert built["id"] == built["bots"][0]["botId"] == APP
    assert built["composeExtensions"][0]["botId"] == APP
    assert built["webApplicationInfo"] == {"id": APP, "resource": f"api://{HOST}/{APP}"}
    assert built["validDomains"] == [HOST]
    assert built["composeExtensions"][0]["messageHandlers"][0]["value"]["domains"] == [HOST]
    assert "00000000-0000-0000-0000-000000000000" not in json.dumps(built)


def test_icons_have_the_sizes_teams_requires() -> None:
    with Image.open(MANIFEST_DIR / "color.png") as color:
        assert color.size == (192, 192)
    with Image.open(MANIFEST_DIR / "outline.png") as outline:
        assert outline.size == (32, 32)
        pixels = {pixel for _, pixel in outline.convert("RGBA").getcolors(maxcolors=32 * 32)}
        # Only white, at any opacity, on transparent: Teams tints the outline icon itself.
        assert all(pixel[3] == 0 or pixel[:3] == (255, 255, 255) for pixel in pixels)
        assert any(pixel[3] == 0 for pixel in pixels)

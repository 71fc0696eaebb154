"""Every card as a host reads it: Microsoft's Adaptive Cards library (npm `adaptivecards`, the
renderer of the Adaptive Cards designer) parses and validates each with a Teams host config,
and says nothing: no unknown type or property, no bad value, no duplicate id, no empty choice
set, no more buttons than Teams shows. The JSON schema (test_cards) checks the shape; this
checks what a renderer makes of it."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cards.layout import Card
from tests.cards.test_assigned import CARDS as PERSONAL
from tests.cards.test_cards import CARDS as BUILT

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
# Installed by `make test` (Makefile: NPM_PACKAGES), under .venv so git ignores it.
NODE_MODULES = ROOT / ".venv" / "npm" / "node_modules"
LIBRARY = NODE_MODULES / "adaptivecards" / "dist" / "adaptivecards.js"
SCRIPT = HERE / "parse_cards.js"
HOST_CONFIG = HERE / "teams_host_config.json"
PARSE_SECONDS = 120


# Every card the bot sends: each builder's (test_cards) and the personal notifications'.
CARDS: dict[str, Card] = BUILT | {f"assigned {name}": card for name, card in PERSONAL.items()}


def require_node() -> str:
    """Node's path, once the library is installed; a test without them is skipped (outside
    CI) with how to install them."""
    node = shutil.which("node")
    if node is None:
        missing = "Node.js is not installed (apt-get install nodejs npm)"
    elif not LIBRARY.exists():
        missing = "the npm package adaptivecards is not installed (`make test` installs it)"
    else:
        return node
    if os.environ.get("CI"):
        pytest.fail(f"{missing}; CI needs it", pytrace=False)
    pytest.skip(f"{missing}; the adaptivecards parse tests are skipped outside CI")


def parsed(cards: dict[str, Card]) -> dict[str, list[str]]:
    """What the library says of each card: one Node process for them all."""
    done = subprocess.run(
        [require_node(), str(SCRIPT), str(NODE_MODULES), str(HOST_CONFIG)],
        input=json.dumps(cards),
        capture_output=True,
        text=True,
        timeout=PARSE_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, list[str]] = json.loads(done.stdout)
    assert set(found) == set(cards)
    return found


@pytest.fixture(scope="module")
def said() -> dict[str, list[str]]:
    return parsed(CARDS)


@pytest.mark.parametrize("name", CARDS)
def test_adaptivecards_parses_the_card_without_a_word(
    said: dict[str, list[str]], name: str
) -> None:
    assert said[name] == []


def test_the_library_does_report_problems() -> None:
    """The script's checks run: a card with each kind of problem gets a message for each."""
    broken = {
        "type": "AdaptiveCard",
        "version": "1.5",
        "body": [
            {"type": "TextBlock", "text": "x", "colour": "good"},
            {"type": "Input.Text", "id": "a", "inputStyle": "revealOnHover"},  # 1.6
            {"type": "Input.Text", "id": "a"},
            {"type": "Input.ChoiceSet", "id": "b", "choices": []},
            {"type": "TextBlock", "text": "y", "size": "huge"},
            {"type": "Gauge"},
        ],
        "actions": [{"type": "Action.Execute", "title": str(n)} for n in range(7)],
        "msteams": {"width": "Full"},
    }
    messages = "\n".join(parsed({"broken": broken})["broken"])
    for expected in (
        'unknown property "colour"',
        "UnsupportedProperty",
        "DuplicateId",
        "CollectionCantBeEmpty",
        "InvalidPropertyValue",
        "UnknownElementType",
        "TooManyActions",
    ):
        assert expected in messages
    assert "msteams" not in messages

"""The Teams app package: manifest/manifest.json with this deployment's ids, and the two icons."""

import argparse
import copy
import json
import re
import zipfile
from pathlib import Path
from typing import Any

MANIFEST_DIR = Path(__file__).resolve().parents[2] / "manifest"
ICONS = ("color.png", "outline.png")
# A fixed time in the zip entries, so the same inputs build the same bytes.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_GUID = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def app_id(value: str) -> str:
    """argparse type: the bot's Microsoft Entra application (client) id, a GUID."""
    if not _GUID.match(value):
        raise argparse.ArgumentTypeError(f"'{value}' is not a GUID (the bot's Entra app id)")
    return value.lower()


def domain(value: str) -> str:
    """argparse type: the public host name the app answers on, without scheme, port or path."""
    host = value.strip().lower().rstrip(".")
    labels = host.split(".")
    if len(host) > 253 or len(labels) < 2 or not all(_LABEL.match(label) for label in labels):
        raise argparse.ArgumentTypeError(
            f"'{value}' is not a host name like tracker.contoso.com (no https://, port or path)"
        )
    return host


def zip_path(value: str) -> Path:
    """argparse type: where to write the package, a .zip in a folder that exists."""
    path = Path(value)
    if path.suffix.lower() != ".zip":
        raise argparse.ArgumentTypeError(f"'{value}' must name a .zip file")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"the folder of '{value}' does not exist")
    return path


def manifest_for(template: dict[str, Any], *, app: str, host: str) -> dict[str, Any]:
    """The template with every id and domain set to this deployment's."""
    manifest = copy.deepcopy(template)
    manifest["id"] = app
    for bot in manifest["bots"]:
        bot["botId"] = app
    for extension in manifest["composeExtensions"]:
        extension["botId"] = app
        for handler in extension.get("messageHandlers", []):
            handler["value"]["domains"] = [host]
    for tab in manifest.get("configurableTabs", []):
        tab["configurationUrl"] = f"https://{host}/tabs/config"
    for tab in manifest.get("staticTabs", []):
        tab["contentUrl"] = tab["websiteUrl"] = f"https://{host}/tabs/me"
    manifest["validDomains"] = [host]
    manifest["webApplicationInfo"] = {"id": app, "resource": f"api://{host}/{app}"}
    developer = manifest["developer"]
    developer["websiteUrl"] = f"https://{host}/"
    developer["privacyUrl"] = f"https://{host}/privacy"
    developer["termsOfUseUrl"] = f"https://{host}/terms"
    return manifest


def build_package(*, app: str, host: str, out: Path, source: Path = MANIFEST_DIR) -> Path:
    """Write the zip Teams installs: manifest.json and the icons at its root."""
    template = json.loads((source / "manifest.json").read_text())
    manifest = manifest_for(template, app=app, host=host)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as package:
        _add(package, "manifest.json", json.dumps(manifest, indent=2).encode())
        for icon in ICONS:
            _add(package, icon, (source / icon).read_bytes())
    return out


def _add(package: zipfile.ZipFile, name: str, content: bytes) -> None:
    entry = zipfile.ZipInfo(name, date_time=ZIP_TIME)
    entry.compress_type = zipfile.ZIP_DEFLATED
    package.writestr(entry, content)

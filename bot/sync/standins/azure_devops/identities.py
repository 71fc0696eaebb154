"""People as Azure DevOps shows them in identity fields: `{displayName, uniqueName, id, ...}`,
and how a value written to such a field ("Name <mail>", or a mail alone) names one."""

import functools
import re
import uuid
from dataclasses import dataclass
from typing import Any

_NAMED = re.compile(r"^\s*(?P<name>.*?)\s*<(?P<mail>[^<>\s]+)>\s*$")


@dataclass(frozen=True, slots=True)
class Identity:
    display_name: str
    unique_name: str  # the mail or UPN

    @property
    def id(self) -> str:
        return _id(self.unique_name.lower())

    def ref(self) -> dict[str, Any]:
        return {
            "displayName": self.display_name,
            "uniqueName": self.unique_name,
            "id": self.id,
            "descriptor": f"aad.{self.id}",
        }

    def __str__(self) -> str:
        return f"{self.display_name} <{self.unique_name}>"


@functools.cache
def _id(unique_name: str) -> str:
    """A stable id per person (seeding thousands of items names the same few)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"ado-identity:{unique_name}"))


def parse_identity(value: str) -> Identity:
    """`"Ada Lovelace <ada@contoso.example>"`, or a mail, or a display name alone."""
    named = _NAMED.match(value)
    if named:
        mail = named["mail"]
        return Identity(named["name"] or mail, mail)
    value = value.strip()
    return Identity(value.split("@")[0] if "@" in value else value, value)

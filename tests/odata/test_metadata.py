"""The CSDL builder: EDM types, nullability, keys, complex and open types, refused descriptions."""

from datetime import datetime
from enum import IntEnum, StrEnum
from typing import Any
from xml.etree import ElementTree

import pytest
from pydantic import BaseModel, Field, create_model
from sqlalchemy import column

from bot.odata.metadata import EDM, EDMX, DescribedSet, csdl_document
from bot.odata.model import EntitySet, Property, PropertyKind
from bot.schemas import Timestamp

NS = {"edm": EDM, "edmx": EDMX}


class Colour(StrEnum):
    RED = "Red"


class Level(IntEnum):
    LOW = 0


class Owner(BaseModel):
    name: str
    email: str | None


class Widget(BaseModel):
    odata_id: str = Field(alias="@odata.id")
    id: str = Field(alias="_id")
    count: int
    ratio: float | None
    done: bool
    seen_at: Timestamp | None = Field(alias="seenAt")
    made_at: datetime = Field(alias="madeAt")
    colour: Colour
    owner: Owner | None
    owners: list[Owner]
    tags: list[str]
    extra: list[Any]
    level: Level


def widgets(name: str = "widgets", key: str = "_id") -> EntitySet:
    key_property = Property(key, column(key), PropertyKind.ID)
    return EntitySet(name=name, properties={key: key_property}, key=key_property)


def parse(document: bytes) -> ElementTree.Element:
    return ElementTree.fromstring(document)


def properties_of(root: ElementTree.Element, tag: str, name: str) -> dict[str, dict[str, str]]:
    found = root.find(f".//edm:{tag}[@Name='{name}']", NS)
    assert found is not None, f"no {tag} {name}"
    return {p.attrib["Name"]: p.attrib for p in found.findall("edm:Property", NS)}


def test_fields_get_their_edm_types_and_nullability() -> None:
    root = parse(csdl_document([DescribedSet(widgets(), Widget)]))
    declared = {
        name: (attrib["Type"], attrib.get("Nullable", "true"))
        for name, attrib in properties_of(root, "EntityType", "Widgets").items()
    }
    assert declared == {
        "_id": ("Edm.String", "false"),
        "count": ("Edm.Int64", "false"),
        "ratio": ("Edm.Double", "true"),
        "done": ("Edm.Boolean", "false"),
        "seenAt": ("Edm.DateTimeOffset", "true"),
        "madeAt": ("Edm.DateTimeOffset", "false"),
        "colour": ("Edm.String", "false"),
        "owner": ("Tracker.Owner", "true"),
        "owners": ("Collection(Tracker.Owner)", "false"),
        "tags": ("Collection(Edm.String)", "false"),
    }


def test_untyped_fields_leave_the_type_open_and_annotations_are_no_properties() -> None:
    root = parse(csdl_document([DescribedSet(widgets(), Widget)]))
    entity = root.find(".//edm:EntityType[@Name='Widgets']", NS)
    assert entity is not None
    assert entity.attrib["OpenType"] == "true"  # extra (list[Any]) and level (int enum) undeclared
    names = {p.attrib["Name"] for p in entity.findall("edm:Property", NS)}
    assert not names & {"extra", "level", "@odata.id", "odata_id"}


def test_nested_models_become_complex_types_declared_once() -> None:
    root = parse(csdl_document([DescribedSet(widgets(), Widget)]))
    assert len(root.findall(".//edm:ComplexType[@Name='Owner']", NS)) == 1
    assert properties_of(root, "ComplexType", "Owner") == {
        "name": {"Name": "name", "Type": "Edm.String", "Nullable": "false"},
        "email": {"Name": "email", "Type": "Edm.String"},
    }


def test_each_set_has_its_key_and_a_container_entry() -> None:
    document = csdl_document(
        [DescribedSet(widgets(), Widget), DescribedSet(widgets("owners", "name"), Owner)]
    )
    root = parse(document)
    assert root.tag == f"{{{EDMX}}}Edmx" and root.attrib["Version"] == "4.0"
    sets = {
        s.attrib["Name"]: s.attrib["EntityType"]
        for s in root.findall(".//edm:EntityContainer/edm:EntitySet", NS)
    }
    assert sets == {"widgets": "Tracker.Widgets", "owners": "Tracker.Owners"}
    for type_name, key in (("Widgets", "_id"), ("Owners", "name")):
        refs = root.findall(f".//edm:EntityType[@Name='{type_name}']/edm:Key/edm:PropertyRef", NS)
        assert [ref.attrib["Name"] for ref in refs] == [key]
    # Owner is both a set's element and nested in Widget: an entity type and a complex type.
    assert root.find(".//edm:ComplexType[@Name='Owner']", NS) is not None


@pytest.mark.parametrize(
    ("entity", "why"),
    [
        (widgets(key="nothing"), "no non-null primitive key nothing"),
        (widgets(key="ratio"), "no non-null primitive key ratio"),  # nullable
        (widgets(key="owners"), "no non-null primitive key owners"),  # a collection
    ],
)
def test_a_key_the_element_does_not_carry_is_refused(entity: EntitySet, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        csdl_document([DescribedSet(entity, Widget)])


def test_a_set_described_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="the set widgets is described twice"):
        csdl_document([DescribedSet(widgets(), Widget), DescribedSet(widgets(), Widget)])


def test_two_models_of_one_name_are_refused() -> None:
    first = create_model("Twin", id=(str, ...))
    second = create_model("Twin", id=(int, ...))
    holder = create_model("Holder", id=(str, ...), a=(first, ...), b=(second, ...))
    with pytest.raises(ValueError, match="two models are named Twin"):
        csdl_document([DescribedSet(widgets(key="id"), holder)])

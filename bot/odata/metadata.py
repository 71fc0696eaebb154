"""`$metadata`: the CSDL (OData v4) document of the entity sets a generic client can read.

Each set comes from its `EntitySet` (the set name, as in `@odata.context`, and the key) and the
pydantic model of one element of its list (every field the client receives, with its type and
nullability). Fields that have no EDM type (`list[Any]`) are left undeclared and their entity type
is open, so they still arrive as dynamic properties.
"""

import types
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from typing import Annotated, Any, Literal, Union, get_args, get_origin
from xml.etree import ElementTree

from pydantic import BaseModel

from bot.odata.model import EntitySet

NAMESPACE = "Tracker"
EDMX = "http://docs.oasis-open.org/odata/ns/edmx"
EDM = "http://docs.oasis-open.org/odata/ns/edm"
# bool before int: a bool is an int to issubclass.
_PRIMITIVES: tuple[tuple[type, str], ...] = (
    (bool, "Edm.Boolean"),
    (int, "Edm.Int64"),
    (float, "Edm.Double"),
    (Decimal, "Edm.Decimal"),
    (datetime, "Edm.DateTimeOffset"),
    (date, "Edm.Date"),
    (str, "Edm.String"),  # StrEnum values too: clients receive the member's name as text
)


@dataclass(frozen=True)
class DescribedSet:
    """One entity set of the document: its OData face and the model of one list element."""

    entity: EntitySet
    element: type[BaseModel]


@dataclass(frozen=True)
class _Field:
    name: str
    type: str  # an EDM type, a `Tracker.<Complex>` or `Collection(...)` of either
    nullable: bool


def csdl_document(sets: Sequence[DescribedSet]) -> bytes:
    """The `$metadata` XML: an entity type per set (named after it), complex types for objects."""
    types_ = _Types()
    entity_types: dict[str, DescribedSet] = {}
    for described in sets:
        name = _entity_type_name(described.entity)
        if name in entity_types:
            raise ValueError(f"$metadata: the set {described.entity.name} is described twice")
        entity_types[name] = described
    structures = {name: types_.fields_of(d.element) for name, d in entity_types.items()}
    for name, described in entity_types.items():
        _check_key(name, structures[name][0], described.entity.key.name)
    clash = set(entity_types) & set(types_.complex)
    if clash:
        raise ValueError(f"$metadata: {', '.join(sorted(clash))} names a set and a model")

    ElementTree.register_namespace("edmx", EDMX)
    root = ElementTree.Element(f"{{{EDMX}}}Edmx", Version="4.0")
    services = ElementTree.SubElement(root, f"{{{EDMX}}}DataServices")
    schema = ElementTree.SubElement(services, "Schema", Namespace=NAMESPACE, xmlns=EDM)
    for name, described in entity_types.items():
        entity = _structured(schema, "EntityType", name, *structures[name])
        key = ElementTree.Element("Key")
        ElementTree.SubElement(key, "PropertyRef", Name=described.entity.key.name)
        entity.insert(0, key)  # the key comes before the properties
    for name, (fields, is_open) in types_.complex.items():
        _structured(schema, "ComplexType", name, fields, is_open)
    container = ElementTree.SubElement(schema, "EntityContainer", Name=NAMESPACE)
    for name, described in entity_types.items():
        ElementTree.SubElement(
            container, "EntitySet", Name=described.entity.name, EntityType=f"{NAMESPACE}.{name}"
        )
    return ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)


def _entity_type_name(entity: EntitySet) -> str:
    """`bugs` → `Bugs`: a set's own type, so a model may be both a set's element and nested."""
    return entity.name[:1].upper() + entity.name[1:]


def _check_key(type_name: str, fields: list[_Field], key: str) -> None:
    """The key must be a declared, never-null primitive of the element."""
    field = next((f for f in fields if f.name == key), None)
    if field is None or field.nullable or not field.type.startswith("Edm."):
        raise ValueError(f"$metadata: {type_name} has no non-null primitive key {key}")


def _structured(
    schema: ElementTree.Element, tag: str, name: str, fields: list[_Field], is_open: bool
) -> ElementTree.Element:
    element = ElementTree.SubElement(schema, tag, Name=name)
    if is_open:
        element.set("OpenType", "true")
    for field in fields:
        prop = ElementTree.SubElement(element, "Property", Name=field.name, Type=field.type)
        if not field.nullable:
            prop.set("Nullable", "false")
    return element


class _Types:
    """The complex types met so far, by name, each with its fields and whether it is open."""

    def __init__(self) -> None:
        self.complex: dict[str, tuple[list[_Field], bool]] = {}
        self._models: dict[str, type[BaseModel]] = {}

    def fields_of(self, model: type[BaseModel]) -> tuple[list[_Field], bool]:
        """The model's fields by their JSON names, and whether some have no EDM type (open)."""
        fields: list[_Field] = []
        is_open = False
        for field_name, info in model.model_fields.items():
            json_name = info.serialization_alias or info.alias or field_name
            if json_name.startswith("@"):
                continue  # `@odata.*` control information, not a property
            edm = self._edm_type(info.annotation)
            if edm is None:
                is_open = True
            else:
                fields.append(_Field(json_name, *edm))
        return fields, is_open

    def complex_type(self, model: type[BaseModel]) -> str:
        """The model's complex type name, declaring it (and the types it nests) on first sight."""
        name = model.__name__
        if name in self._models:
            if self._models[name] is not model:
                raise ValueError(f"$metadata: two models are named {name}")
            return name
        self._models[name] = model
        self.complex[name] = ([], False)  # before the fields: a model may nest itself
        self.complex[name] = self.fields_of(model)
        return name

    def _edm_type(self, annotation: Any) -> tuple[str, bool] | None:
        """(EDM type, nullable) of an annotation, None when it has no EDM type."""
        annotation = _unwrap(annotation)
        nullable = False
        if get_origin(annotation) in (Union, types.UnionType):
            options = [_unwrap(arg) for arg in get_args(annotation) if arg is not type(None)]
            nullable = len(options) < len(get_args(annotation))
            if len(options) != 1:
                return None
            annotation = options[0]
        if get_origin(annotation) is list:
            (item,) = get_args(annotation) or (Any,)
            inner = self._edm_type(item)
            if inner is None or inner[0].startswith("Collection("):
                return None
            return f"Collection({inner[0]})", nullable
        single = self._single_type(annotation)
        return None if single is None else (single, nullable)

    def _single_type(self, annotation: Any) -> str | None:
        if get_origin(annotation) is Literal:
            values = get_args(annotation)
            return "Edm.String" if all(isinstance(v, str) for v in values) else None
        if not isinstance(annotation, type):
            return None  # Any, dict[...], and other shapes EDM cannot name
        if issubclass(annotation, BaseModel):
            return f"{NAMESPACE}.{self.complex_type(annotation)}"
        if issubclass(annotation, Enum) and not issubclass(annotation, str):
            return None
        return next((edm for python, edm in _PRIMITIVES if issubclass(annotation, python)), None)


def _unwrap(annotation: Any) -> Any:
    """The type inside `Annotated[...]`."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation

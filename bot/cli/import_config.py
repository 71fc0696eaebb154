"""What an export's JSON configures beside its field values, recreated by `admin import` in its
one unit of work through the services the API uses (so every record passes the API's checks):

- `projects`: each external project the channel lacks (same source and source id) is configured,
  without credentials, since an export holds none; it starts with its default mappings. The
  channel's native project is its own, never copied.
- `mappings`: each mapping the channel lacks is made, its project found by source and source id
  and its value by name; a project the import configured takes the file's mapping over its
  default one; a channel's own project keeps its own mapping (listed under `needsAttention`
  when the file's differs).
- `eventDefinitions`: each rule is added unless the channel has one of the same name and kind.
  The same rule (trigger, conditions, action) is left as it is, except that a Notification rule
  on in the file is switched on here (as the off defaults every installed channel gets are); a
  different one is listed under `needsAttention`. HTTP rules are added switched off with a
  `disabledReason`: their signing secret is new and their header values were not exported.

A record the services refuse is a wrong record, with the service's message. An HTTP rule's host
is looked up (the API's webhook address check) inside the import's transaction, so on SQLite
with the write lock held: a slow resolver keeps the app's writers waiting meanwhile.
"""

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from bot.cli.import_rows import Record
from bot.db.statements import Row
from bot.db.uow import UnitOfWork
from bot.events import service as events
from bot.events.definitions import checks
from bot.events.schemas import ActionType, DefinitionIn, DefinitionPatch
from bot.fields.catalog import load_catalog
from bot.mappings import service as mappings
from bot.mappings.following import FollowingMappings
from bot.mappings.schemas import MappedField, MappingIn, MappingPatch
from bot.projects import service as projects
from bot.projects.schemas import ProjectIn
from bot.projects.sources import SourceKind
from bot.schemas import ItemKind
from bot.validation import describe_validation_error

# What an exported project gives a configure body (its id, dates and `hasCredentials` are the
# source's); an empty hostname, colour or state list is as good as none.
PROJECT_FIELDS = (
    "displayName",
    "source",
    "sourceId",
    "projectName",
    "hostname",
    "enable",
    "enableBug",
    "color",
    "states",
)
RULE_FIELDS = (
    "eventName",
    "entityType",
    "enable",
    "triggerType",
    "conditionsOps",
    "conditions",
    "actionType",
    "action",
)
SET_CREDENTIALS = "set its token or password (PATCH /api/projects/{id}): an export holds none"


class Wrong(Exception):
    """A record that cannot be imported; `why` is its line in the error report."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass
class Configuration:
    """The projects, mappings and rules one import adds, and what they leave to be done."""

    uow: UnitOfWork
    secret_key: str
    allowed_hosts: list[str]
    projects_added: list[dict[str, str]] = field(default_factory=list)
    mappings_added: int = 0
    mappings_changed: int = 0
    rules_added: list[dict[str, Any]] = field(default_factory=list)
    rules_switched_on: list[dict[str, str]] = field(default_factory=list)
    needs_attention: list[dict[str, Any]] = field(default_factory=list)
    # The file's project ids → their source and source id; those → this channel's project.
    _exported: dict[str, tuple[str, str]] = field(default_factory=dict)
    _here: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _configured: set[str] = field(default_factory=set)  # projects this import configured

    def summary(self) -> dict[str, Any]:
        return {
            "projectsAdded": self.projects_added,
            "mappingsAdded": self.mappings_added,
            "mappingsChanged": self.mappings_changed,
            "rulesAdded": self.rules_added,
            "rulesSwitchedOn": self.rules_switched_on,
            "needsAttention": self.needs_attention,
        }

    async def project_here(self, source: str, source_id: str) -> str | None:
        """The id of this channel's project of that source and source id, if it has one."""
        key = (source, source_id)
        if key not in self._here:
            self._here[key] = await projects.project_by_source(
                self.uow, channel_id=self._channel_id(), source=source, source_id=source_id
            )
        return self._here[key]

    async def project(self, record: Record) -> None:
        exported = record.fields
        source, source_id, exported_id = (
            exported.get(name) for name in ("source", "sourceId", "_id")
        )
        if source == SourceKind.NATIVE.value:
            return  # the channel has its own
        if isinstance(exported_id, str) and isinstance(source, str) and isinstance(source_id, str):
            # Known before its checks: the mappings of a wrong project say which one it was.
            self._exported[exported_id] = (source, source_id.strip())
        sent = {
            name: exported[name]
            for name in PROJECT_FIELDS
            if exported.get(name) not in (None, "", [])
        }
        try:
            body = ProjectIn.model_validate(sent)
        except ValidationError as error:
            raise Wrong(describe_validation_error(error)) from None
        key = (body.source.value, body.source_id)
        if await self.project_here(*key) is not None:
            return
        project = await projects.create_project(
            self.uow, body=body, secret_key=self.secret_key, mappings=FollowingMappings()
        )
        self._here[key] = project.id
        self._configured.add(project.id)
        self.projects_added.append(
            {"displayName": body.display_name, "source": key[0], "sourceId": key[1]}
        )
        if exported.get("hasCredentials"):
            self._attention(record, f"project '{body.display_name}'", SET_CREDENTIALS)

    async def mapping(self, record: Record) -> None:
        exported = record.fields
        exported_project = exported.get("projectId")
        key = self._exported.get(exported_project) if isinstance(exported_project, str) else None
        if key is None:
            raise Wrong(
                f"projectId: '{exported_project}' is not an external project of the file's projects"
            )
        project_id = await self.project_here(*key)
        if project_id is None:
            raise Wrong(f"projectId: {key[0]} project '{key[1]}' is not configured here")
        kinds = {kind.type_label: kind for kind in ItemKind}
        kind = kinds.get(str(exported.get("entityType")))
        if exported.get("type") not in tuple(MappedField) or kind is None:
            raise Wrong("type and entityType: a status, priority or severity, of a Bug or Task")
        mapped = MappedField(exported["type"])
        catalog = await load_catalog(self.uow, channel_id=self._channel_id(), kind=kind)
        values = {
            MappedField.STATUS: catalog.statuses,
            MappedField.PRIORITY: catalog.priorities,
            MappedField.SEVERITY: catalog.severities,
        }[mapped]
        value = values.named(str(exported.get("fieldName") or ""))
        try:
            body = MappingIn.model_validate(
                {
                    "fieldId": value.id,
                    "projectId": project_id,
                    "sourceId": exported.get("sourceId"),
                    "sourceName": exported.get("sourceName"),
                    "type": mapped,
                    "entityType": kind.type_label,
                    "enable": exported.get("enable", True),
                }
            )
        except ValidationError as error:
            raise Wrong(describe_validation_error(error)) from None
        held = await mappings.find_mapping(
            self.uow,
            project_id=project_id,
            field=mapped,
            entity_type=kind.type_label,
            source_id=body.source_id,
        )
        if held is None:
            await mappings.create_mapping(self.uow, body=body)
            self.mappings_added += 1
        elif (held.field_id, held.enable) == (value.id, body.enable):
            return
        elif project_id in self._configured:  # its default mapping, made by this import
            patch = MappingPatch.model_validate(
                {"fieldId": value.id, "enable": body.enable, "sourceName": body.source_name}
            )
            await mappings.update_mapping(self.uow, mapping_id=held.id, patch=patch)
            self.mappings_changed += 1
        else:
            here = values.by_id.get(held.field_id)
            self._attention(
                record,
                f"{key[0]} project '{key[1]}': {kind.type_label} {mapped} '{body.source_id}'",
                f"mapped here to '{here.name if here else held.field_id}'"
                f"{'' if held.enable else ' (off)'}, in the file to '{value.name}'"
                f"{'' if body.enable else ' (off)'}: left as it is here",
            )

    async def rule(self, record: Record) -> None:
        exported = record.fields
        sent = {name: exported[name] for name in RULE_FIELDS if name in exported}
        http = sent.get("actionType") == ActionType.HTTP.value
        unset: list[str] = []
        if http:
            sent["enable"] = False  # until its header values and the receiver's secret are set
            sent["action"], unset = _header_values_blanked(sent.get("action"))
        try:
            body = DefinitionIn.model_validate(sent)
        except ValidationError as error:
            raise Wrong(describe_validation_error(error)) from None
        # The checks every save passes, and where an HTTP rule may send, before anything is kept.
        conditions = checks.checked_conditions(
            body.conditions, kind=body.entity_type, trigger=body.trigger_type
        )
        action = checks.checked_action(body.action_type, body.action)
        await events.check_reachable(action, self.allowed_hosts)
        name = f"rule '{body.event_name}' ({body.entity_type.value})"
        named = await events.definitions_named(
            self.uow, kind=body.entity_type, name=body.event_name
        )
        if named:
            same = next((held for held in named if _same(held, body, conditions, action)), None)
            if same is None:
                self._attention(
                    record, name, "a different rule of this name is here: left as it is"
                )
            elif not http and body.enable and not same.enabled:
                patch = DefinitionPatch.model_validate({"enable": True})
                await events.update_definition(self.uow, definition_id=same.id, patch=patch)
                self.rules_switched_on.append(_named(body))
            return
        reason = _imported_http_reason(unset) if http else None
        definition = await events.create_definition(self.uow, body=body, disabled_reason=reason)
        self.rules_added.append({**_named(body), "enable": definition.enabled})
        if reason is not None:
            self._attention(record, name, reason)

    def _attention(self, record: Record, what: str, todo: str) -> None:
        self.needs_attention.append({"at": record.where, "what": what, "todo": todo})

    def _channel_id(self) -> str:
        assert self.uow.channel is not None, "an import goes into a channel"
        return self.uow.channel.channel_id


def _header_values_blanked(action: Any) -> tuple[Any, list[str]]:
    """An exported HTTP action with each header value the export left out (null) empty, and
    the names of those headers."""
    if not isinstance(action, dict) or not isinstance(action.get("headers"), list):
        return action, []
    headers, unset = [], []
    for header in action["headers"]:
        if isinstance(header, dict) and header.get("value") is None:
            unset.append(str(header.get("name")))
            header = {**header, "value": ""}
        headers.append(header)
    return {**action, "headers": headers}, unset


def _imported_http_reason(unset: list[str]) -> str:
    """Why an imported HTTP rule is off, and what switches it on."""
    headers = f"set its header values ({', '.join(unset)}), " if unset else ""
    return (
        f"Imported: {headers}give the receiver its new signing secret (rotate it to see it), "
        "then switch it on"
    )


def _same(held: Row, body: DefinitionIn, conditions: list[Any], action: dict[str, Any]) -> bool:
    """Whether the channel's rule does what the file's does (header values aside: the file
    has none)."""
    return (
        held.action_type == body.action_type.value
        and held.trigger == body.trigger_type.value
        and held.conditions_op == body.conditions_ops.value
        and held.conditions == conditions
        and _no_values(held.action) == _no_values(action)
    )


def _no_values(action: dict[str, Any]) -> dict[str, Any]:
    """An action with its headers by name alone."""
    headers = action.get("headers")
    if not headers:
        return action
    return {**action, "headers": [{"name": header["name"]} for header in headers]}


def _named(body: DefinitionIn) -> dict[str, str]:
    return {"eventName": body.event_name, "entityType": body.entity_type.value}

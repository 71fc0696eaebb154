"""The stand-in's state, in memory: one project's work items with their revisions, comments,
and recycle bin. Every change bumps `rev` and `System.ChangedDate` (strictly later than the
last change anywhere, so paging by ChangedDate is exact) and records `System.ChangedBy`."""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.clock import Clock
from bot.sync.standins.azure_devops.errors import AdoError, bad_request, not_found
from bot.sync.standins.azure_devops.identities import Identity, parse_identity
from bot.sync.standins.azure_devops.process import WorkItemType, new_process

IDENTITY_FIELDS = {"System.AssignedTo", "System.ChangedBy", "System.CreatedBy"}
DATE_FIELDS = {"Microsoft.VSTS.Scheduling.StartDate", "Microsoft.VSTS.Scheduling.DueDate"}
COMPLETED = {"Completed", "Removed"}
_TICK = timedelta(milliseconds=1)


def iso(at: datetime) -> str:
    """Azure DevOps' form: UTC, milliseconds, `Z`."""
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True)
class Comment:
    id: int
    work_item_id: int
    text: str
    by: Identity
    at: datetime
    version: int = 1  # moves with each edit
    modified_by: Identity | None = None
    modified_at: datetime | None = None


@dataclass(slots=True)
class WorkItem:
    id: int
    type: WorkItemType
    fields: dict[str, Any]  # reference name → value as served (identities as IdentityRef)
    changed_at: datetime
    revisions: list[dict[str, Any]] = field(default_factory=list)  # fields at each rev
    comments: list[Comment] = field(default_factory=list)

    @property
    def rev(self) -> int:
        return int(self.fields["System.Rev"])

    @property
    def area_path(self) -> str:
        return str(self.fields.get("System.AreaPath", ""))


# (event type "workitem.created|updated|deleted", the item, its fields before the change)
Listener = Callable[[str, WorkItem, dict[str, Any]], None]


class Store:
    def __init__(self, *, project: str, clock: Clock, listener: Listener) -> None:
        self.project = project
        self.types = new_process()
        self.items: dict[int, WorkItem] = {}
        self.recycle_bin: dict[int, WorkItem] = {}
        self._clock = clock
        self._listener = listener
        self._last_stamp: datetime | None = None
        self._next_id = 1
        self._next_comment_id = 1

    def stamp(self) -> datetime:
        now = self._clock.now()
        now = now.replace(microsecond=now.microsecond // 1000 * 1000)  # the service keeps ms
        if self._last_stamp is not None and now <= self._last_stamp:
            now = self._last_stamp + _TICK
        self._last_stamp = now
        return now

    def get(self, item_id: int) -> WorkItem:
        item = self.items.get(item_id)
        if item is None:
            raise not_found(item_id)
        return item

    def create(
        self, type_: WorkItemType, values: Mapping[str, Any], by: Identity, *, notify: bool = True
    ) -> WorkItem:
        """A new work item from already named field values (a patch, or a seed)."""
        at = self.stamp()
        fields: dict[str, Any] = {
            "System.AreaPath": self.project,
            "System.IterationPath": self.project,
            "System.State": type_.states[0].name,
            "System.Reason": "New",
            **dict(type_.defaults),
        }
        fields.update(_checked(type_, values, creating=True))
        if not str(fields.get("System.Title") or "").strip():
            raise _rule("Title", "Required, InvalidEmpty")
        item_id = self._next_id
        self._next_id += 1
        fields.update(
            {
                "System.Id": item_id,
                "System.Rev": 1,
                "System.TeamProject": self.project,
                "System.WorkItemType": type_.name,
                "System.CreatedDate": (when := iso(at)),
                "System.CreatedBy": (who := by.ref()),
                "System.ChangedDate": when,
                "System.ChangedBy": dict(who),
                "System.CommentCount": 0,
            }
        )
        _close_if_done(type_, fields, {}, at)
        item = WorkItem(item_id, type_, fields, at, [dict(fields)])
        self.items[item_id] = item
        if notify:
            self._listener("workitem.created", item, {})
        return item

    def update(self, item_id: int, values: Mapping[str, Any], by: Identity) -> WorkItem:
        """Set (or, with a value of None, remove) fields: one new revision, or none when no
        value differs (so a change sent twice changes nothing the second time)."""
        item = self.get(item_id)
        checked = _checked(item.type, values, creating=False)
        before = dict(item.fields)
        fields = {k: v for k, v in item.fields.items() if k != "System.History"}
        for name, value in checked.items():
            if value is None:
                fields.pop(name, None)
            else:
                fields[name] = value
        if not str(fields.get("System.Title") or "").strip():
            raise _rule("Title", "Required, InvalidEmpty")
        if fields == before:
            return item
        self._bump(item, fields, by)
        _close_if_done(item.type, fields, before, item.changed_at)
        item.fields = fields
        item.revisions.append(dict(fields))
        self._listener("workitem.updated", item, before)
        return item

    def delete(self, item_id: int, *, destroy: bool = False) -> WorkItem:
        item = self.get(item_id)
        del self.items[item_id]
        if not destroy:
            self.recycle_bin[item_id] = item
        self._listener("workitem.deleted", item, dict(item.fields))
        return item

    def add_comment(self, item_id: int, text: str, by: Identity) -> Comment:
        """A comment; like the service, it makes a new revision of the item."""
        item = self.get(item_id)
        if not text.strip():
            raise bad_request("The comment text cannot be empty.")
        before = self._revised(item, by, len(item.comments) + 1)
        comment = Comment(self._next_comment_id, item_id, text, by, item.changed_at)
        self._next_comment_id += 1
        item.comments.append(comment)
        self._listener("workitem.updated", item, before)
        return comment

    def edit_comment(self, item_id: int, comment_id: int, text: str, by: Identity) -> Comment:
        """A comment's new text; a new revision of the item, as its adding makes (the stand-in
        assumes the service shows an edit as it shows an add)."""
        item = self.get(item_id)
        comment = self._comment(item, comment_id)
        if not text.strip():
            raise bad_request("The comment text cannot be empty.")
        before = self._revised(item, by, len(item.comments))
        comment.text, comment.version = text, comment.version + 1
        comment.modified_by, comment.modified_at = by, item.changed_at
        self._listener("workitem.updated", item, before)
        return comment

    def delete_comment(self, item_id: int, comment_id: int, by: Identity) -> None:
        """A comment gone from the item's list; its count moves with a new revision."""
        item = self.get(item_id)
        comment = self._comment(item, comment_id)
        before = self._revised(item, by, len(item.comments) - 1)
        item.comments.remove(comment)
        self._listener("workitem.updated", item, before)

    def _comment(self, item: WorkItem, comment_id: int) -> Comment:
        found = next((c for c in item.comments if c.id == comment_id), None)
        if found is None:
            raise AdoError(404, f"Comment {comment_id} does not exist on work item {item.id}.")
        return found

    def _revised(self, item: WorkItem, by: Identity, count: int) -> dict[str, Any]:
        """A new revision for a change of the item's comments; its fields before."""
        before = dict(item.fields)
        fields = {k: v for k, v in item.fields.items() if k != "System.History"}
        fields["System.CommentCount"] = count
        self._bump(item, fields, by)
        item.fields = fields
        item.revisions.append(dict(fields))
        return before

    def query(
        self, types: Iterable[str], since: datetime | None, area: str | None
    ) -> list[WorkItem]:
        """Items of these types, changed after `since`, under `area`, by ChangedDate then id."""
        wanted = {t.lower() for t in types}
        found = [
            item
            for item in self.items.values()
            if item.type.name.lower() in wanted
            and (since is None or item.changed_at > since)
            and (area is None or _under(item.area_path, area))
        ]
        found.sort(key=lambda item: (item.changed_at, item.id))
        return found

    def _bump(self, item: WorkItem, fields: dict[str, Any], by: Identity) -> None:
        at = self.stamp()
        item.changed_at = at
        fields["System.Rev"] = item.rev + 1
        fields["System.ChangedDate"] = iso(at)
        fields["System.ChangedBy"] = by.ref()


def _under(path: str, area: str) -> bool:
    path, area = path.lower(), area.lower().rstrip("\\")
    return path == area or path.startswith(area + "\\")


def _rule(field_name: str, codes: str) -> AdoError:
    return bad_request(
        f"TF401320: Rule Error for field {field_name}. Error code: {codes}.",
        "RuleValidationException",
    )


def _checked(type_: WorkItemType, values: Mapping[str, Any], *, creating: bool) -> dict[str, Any]:
    """The values under the type's own reference names, each as the service would store it."""
    checked: dict[str, Any] = {}
    for name, value in values.items():
        known = type_.field(name)
        if known is None:
            raise bad_request(
                f"TF51535: Cannot find field {name}.", "WorkItemFieldInvalidException"
            )
        if known.read_only:
            raise bad_request(
                f"TF401326: Invalid field status 'ReadOnly' for field '{known.reference_name}'.",
                "WorkItemFieldInvalidException",
            )
        if value is None or value == "":
            checked[known.reference_name] = None
            continue
        if known.reference_name in IDENTITY_FIELDS:
            if not isinstance(value, str):
                raise _rule(known.name, "InvalidType")
            value = parse_identity(value).ref()
        elif known.reference_name in DATE_FIELDS:
            value = _date(known.name, value)
        elif known.reference_name == "System.State":
            state = type_.state(str(value))
            if state is None:
                raise _rule(known.name, "LimitedToValues")
            value = state.name
        elif known.allowed:
            value = _allowed(known.allowed, value)
            if value is None:
                raise _rule(known.name, "LimitedToValues")
        checked[known.reference_name] = value
    return checked


def _date(field_name: str, value: object) -> str:
    """A date field as the service stores it: a UTC moment (a bare date is its midnight)."""
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise _rule(field_name, "InvalidType") from None
    return iso(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


def _allowed(allowed: tuple[object, ...], value: object) -> object | None:
    for candidate in allowed:
        if str(candidate) == str(value).strip():
            return candidate
    return None


def _close_if_done(
    type_: WorkItemType, fields: dict[str, Any], before: Mapping[str, Any], at: datetime
) -> None:
    """`ClosedDate` is set when the item enters a Completed or Removed state, cleared on leaving."""
    state = type_.state(str(fields.get("System.State", "")))
    done = state is not None and state.category in COMPLETED
    if done and "Microsoft.VSTS.Common.ClosedDate" not in before:
        fields["Microsoft.VSTS.Common.ClosedDate"] = iso(at)
    elif not done:
        fields.pop("Microsoft.VSTS.Common.ClosedDate", None)

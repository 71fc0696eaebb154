"""The process template the stand-in's projects use: an Agile-like Bug and Task, their states
with Azure DevOps' categories, and which fields each type has."""

from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True, slots=True)
class State:
    name: str
    category: str  # Proposed, InProgress, Resolved, Completed, Removed
    color: str


@dataclass(frozen=True, slots=True)
class Field:
    reference_name: str
    name: str
    allowed: tuple[object, ...] = ()
    read_only: bool = False  # set by the service, never by a patch


PRIORITIES: tuple[object, ...] = (1, 2, 3, 4)
SEVERITIES: tuple[object, ...] = ("1 - Critical", "2 - High", "3 - Medium", "4 - Low")

_COMMON = (
    Field("System.Id", "ID", read_only=True),
    Field("System.Rev", "Rev", read_only=True),
    Field("System.TeamProject", "Team Project", read_only=True),
    Field("System.WorkItemType", "Work Item Type", read_only=True),
    Field("System.CreatedDate", "Created Date", read_only=True),
    Field("System.CreatedBy", "Created By", read_only=True),
    Field("System.ChangedDate", "Changed Date", read_only=True),
    Field("System.ChangedBy", "Changed By", read_only=True),
    Field("System.CommentCount", "Comment Count", read_only=True),
    Field("Microsoft.VSTS.Common.ClosedDate", "Closed Date", read_only=True),
    Field("System.Title", "Title"),
    Field("System.State", "State"),
    Field("System.Reason", "Reason"),
    Field("System.AreaPath", "Area Path"),
    Field("System.IterationPath", "Iteration Path"),
    Field("System.AssignedTo", "Assigned To"),
    Field("System.Description", "Description"),
    Field("System.Tags", "Tags"),
    Field("System.History", "History"),
    Field("Microsoft.VSTS.Common.Priority", "Priority", PRIORITIES),
)

_BUG_ONLY = (
    Field("Microsoft.VSTS.TCM.ReproSteps", "Repro Steps"),
    Field("Microsoft.VSTS.Common.Severity", "Severity", SEVERITIES),
)

_TASK_ONLY = (
    Field("Microsoft.VSTS.Scheduling.StartDate", "Start Date"),
    Field("Microsoft.VSTS.Scheduling.DueDate", "Due Date"),
)


@dataclass
class WorkItemType:
    name: str
    states: list[State]  # a stand-in's own copy: a test may add a state
    fields: tuple[Field, ...]
    defaults: tuple[tuple[str, object], ...]

    @cached_property
    def _by_name(self) -> dict[str, Field]:
        return {f.reference_name.lower(): f for f in self.fields}

    def field(self, reference_name: str) -> Field | None:
        """The type's field by reference name, compared as Azure DevOps does: ignoring case."""
        return self._by_name.get(reference_name.lower())

    def state(self, name: str) -> State | None:
        return next((s for s in self.states if s.name.lower() == name.lower()), None)


def find_type(types: dict[str, WorkItemType], name: str) -> WorkItemType | None:
    """A type by name, compared as Azure DevOps does: ignoring case."""
    return next((t for t in types.values() if t.name.lower() == name.lower()), None)


def new_process() -> dict[str, WorkItemType]:
    """A fresh copy of the process, one per stand-in."""
    return {
        "Bug": WorkItemType(
            "Bug",
            [
                State("New", "Proposed", "b2b2b2"),
                State("Active", "InProgress", "007acc"),
                State("Resolved", "Resolved", "ff9d00"),
                State("Closed", "Completed", "339933"),
            ],
            _COMMON + _BUG_ONLY,
            (
                ("Microsoft.VSTS.Common.Priority", 2),
                ("Microsoft.VSTS.Common.Severity", "3 - Medium"),
            ),
        ),
        "Task": WorkItemType(
            "Task",
            [
                State("New", "Proposed", "b2b2b2"),
                State("Active", "InProgress", "007acc"),
                State("Closed", "Completed", "339933"),
                State("Removed", "Removed", "ffffff"),
            ],
            _COMMON + _TASK_ONLY,
            (("Microsoft.VSTS.Common.Priority", 2),),
        ),
    }

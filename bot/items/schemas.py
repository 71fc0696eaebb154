"""Bugs and tasks in and out (docs/api.md, Bugs and tasks)."""

from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    Field,
    RootModel,
    StringConstraints,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from bot.directory.schemas import UserOut
from bot.projects.schemas import ProjectRef
from bot.schemas import ApiModel, CollectionPage, Instant, ItemKind, RefusesNull, Timestamp

MAX_BODY_BYTES = 64 * 1024
MAX_ASSIGNEES = 50
MAX_BUCKET_ENTRIES = 100
# A JSON field stored as given (`bucket`): the database's JSON serializer refuses 255 levels, and
# no bucket needs more than a few; an export nests it 3 levels deeper, far under the import's
# limit (`bot.cli.import_shape.MAX_DEPTH`), so an exported item always imports again.
MAX_JSON_DEPTH = 64


def _body_size(value: str) -> str:
    if len(value.encode()) > MAX_BODY_BYTES:
        raise ValueError(f"must be at most {MAX_BODY_BYTES // 1024} KiB of UTF-8")
    return value


def _json_depth(value: list[Any]) -> list[Any]:
    """Refuse a value nested deeper than MAX_JSON_DEPTH; walked without recursion."""
    level: list[Any] = [value]
    for _ in range(MAX_JSON_DEPTH):
        level = [
            inner
            for outer in level
            for inner in (outer.values() if isinstance(outer, dict) else outer)
            if isinstance(inner, list | dict)
        ]
        if not level:
            return value
    raise PydanticCustomError(
        "json_depth", "must be nested at most {limit} levels deep", {"limit": MAX_JSON_DEPTH}
    )


Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
Text = Annotated[str, StringConstraints(max_length=255)]
Body = Annotated[str, AfterValidator(_body_size)]
Bucket = Annotated[list[Any], Field(max_length=MAX_BUCKET_ENTRIES), AfterValidator(_json_depth)]


class AssigneeRef(ApiModel):
    """A user named by `_id`, else `sourceId`, else `username` or `email`; the rest is ignored."""

    id: str | None = Field(None, alias="_id", max_length=255)
    source_id: str | None = Field(None, alias="sourceId", max_length=255)
    username: str | None = Field(None, max_length=255)
    email: str | None = Field(None, max_length=255)

    @model_validator(mode="after")
    def _names_someone(self) -> "AssigneeRef":
        if not self.reference:
            raise ValueError("an assignee needs an _id, sourceId, username or email")
        return self

    @property
    def reference(self) -> str:
        return self.id or self.source_id or self.username or self.email or ""


ASSIGNEE_FORMS = (
    "an assignee is a user's _id, UPN or email (text of 1 to 255 characters), or an object with "
    "one of _id, sourceId, username or email"
)


def _one_problem(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """One problem per assignee, in the API's words: a union's error is one line per form it
    tried, each named by pydantic's own name for it."""
    try:
        return handler(value)
    except ValidationError:
        raise PydanticCustomError("assignee", ASSIGNEE_FORMS) from None


Assignees = Annotated[
    list[
        Annotated[
            AssigneeRef | Annotated[str, StringConstraints(min_length=1, max_length=255)],
            WrapValidator(_one_problem),
        ]
    ],
    Field(max_length=MAX_ASSIGNEES),
]


class ItemFields(ApiModel):
    """Fields a client may write, shared by create and PATCH; server-owned ones are ignored."""

    body: Body | None = None
    owner: Text | None = None
    priority: Text | None = None
    status: Text | None = None
    source: Text | None = None
    start_date: Instant | None = Field(None, alias="startDate")
    due_date: Instant | None = Field(None, alias="dueDate")
    completed_date: Instant | None = Field(None, alias="completedDate")
    effort: Text | None = None
    phase: Text | None = None
    phase_name: Text | None = Field(None, alias="phaseName")
    bucket: Bucket | None = None
    bucket_name: Text | None = Field(None, alias="bucketName")
    project_id: Text | None = Field(None, alias="projectId")
    assigned_to: Assignees | None = Field(None, alias="assignedTo")


# The item's own fields under the API's names, as its details show them and a client writes
# them (`projectId` and `assignedTo` name other records).
ITEM_FIELDS = (
    "name",
    "body",
    "owner",
    "status",
    "priority",
    "severity",
    "source",
    "startDate",
    "dueDate",
    "completedDate",
    "effort",
    "phase",
    "phaseName",
    "bucket",
    "bucketName",
)


class TaskCreate(ItemFields):
    name: Title


class BugCreate(TaskCreate):
    severity: Text | None = None


class TaskPatch(ItemFields):
    """Partial update: only the fields sent change; null clears a nullable one."""

    # The service refuses null for these (400): they can change, never be cleared.
    name: Annotated[Title | None, RefusesNull] = None
    status: Annotated[Text | None, RefusesNull] = None
    priority: Annotated[Text | None, RefusesNull] = None
    project_id: Annotated[Text | None, RefusesNull] = Field(None, alias="projectId")


class BugPatch(TaskPatch):
    severity: Annotated[Text | None, RefusesNull] = None


class BulkEdit(ApiModel):
    """Bulk edit (docs/api.md): absent or null leaves a field as it is, as does `assignedTo: []`."""

    ids: Annotated[
        # Any string: one that is no id of this channel answers Svc_NOTFOUND for itself alone.
        list[Annotated[str, StringConstraints(max_length=1024)]],
        Field(min_length=1, max_length=1000),
    ]
    assigned_to: Assignees = Field(default_factory=list, alias="assignedTo")
    status: Text | None = None
    priority: Text | None = None
    severity: Text | None = None
    start_date: Instant | None = Field(None, alias="startDate")
    due_date: Instant | None = Field(None, alias="dueDate")
    completed_date: Instant | None = Field(None, alias="completedDate")


class BulkResult(ApiModel):
    id: str = Field(alias="_id")
    name: str | None
    status: str = Field(description="success or error")
    # An element carries `error` when its status is error, and only then (docs/api.md, Bulk edit).
    error: str | None = Field(
        None,
        exclude_if=lambda error: error is None,
        description="Only on errors: Svc_NOTFOUND, Svc_MAPPING_NOTFOUND, Svc_INVALID_DATES",
    )


class StatusRef(ApiModel):
    id: str | None = Field(alias="_id")
    category: str | None


class Sync(ApiModel):
    status: str | None
    at: Timestamp
    code: str | None = Field(None, description="The source's, when it refused the item")
    message: str | None = Field(None, description="The source's, when it refused the item")
    unmatched: list[str] | None = Field(
        None, description="The source's people no team member matched"
    )


class CreatedBy(ApiModel):
    source: str
    email: str
    name: str
    source_id: str = Field(alias="sourceId")


class Avatar(ApiModel):
    href: str


class Links(ApiModel):
    avatar: Avatar


class UpdatedBy(ApiModel):
    display_name: str = Field(alias="displayName")
    url: str
    links: Links = Field(alias="_links")
    id: str
    unique_name: str = Field(alias="uniqueName")
    image_url: str = Field(alias="imageUrl")
    descriptor: str


class ItemCommon(ApiModel):
    """What created and details responses share."""

    id: str = Field(alias="_id")
    internal_id: int = Field(alias="internalId")
    name: str
    body: str | None
    owner: str | None
    status: str
    priority: str
    source: str
    source_id: str = Field(alias="sourceId")
    start_date: Timestamp | None = Field(alias="startDate")
    due_date: Timestamp | None = Field(alias="dueDate")
    completed_date: Timestamp | None = Field(alias="completedDate")
    effort: str | None
    phase: str | None
    phase_name: str | None = Field(alias="phaseName")
    bucket: list[Any]
    bucket_name: str | None = Field(alias="bucketName")
    attachments: list[Any]
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class TaskCreated(ItemCommon):
    """The 201 of create: the create body's fields, ids for assignees, and OData links."""

    odata_context: str = Field(alias="@odata.context")
    odata_edit_link: str = Field(alias="@odata.editLink")
    odata_id: str = Field(alias="@odata.id")
    project_id: str = Field(alias="projectId")
    assigned_to: list[str] = Field(alias="assignedTo")


class BugCreated(TaskCreated):
    severity: str | None


class TaskDetails(ItemCommon):
    """Every field always present, null when unknown."""

    status_id: StatusRef = Field(alias="statusId")
    status_value: int | None = Field(alias="statusValue")
    sync: Sync
    project_id: ProjectRef = Field(alias="projectId")
    assigned_to: list[UserOut] = Field(alias="assignedTo")
    channel_id: str = Field(alias="channelId")
    team_id: str = Field(alias="teamId")
    group_id: str | None = Field(alias="groupId")
    entity_id: str | None = Field(alias="entityId")
    created_by: CreatedBy | None = Field(alias="createdBy")
    updated_by: UpdatedBy | None = Field(alias="updatedBy")


class BugDetails(TaskDetails):
    severity: str | None


class TaskPage(CollectionPage):
    """An OData collection of tasks."""

    value: list[TaskDetails]


class BugPage(TaskPage):
    value: list[BugDetails]  # type: ignore[assignment]


class BulkResults(RootModel[list[BulkResult]]):
    """One result per requested id, in request order."""


# Each kind's model of each shape, the one place the choice is made: bug models extend task
# models with severity.
CREATE: dict[ItemKind, type[TaskCreate]] = {ItemKind.BUG: BugCreate, ItemKind.TASK: TaskCreate}
PATCH: dict[ItemKind, type[TaskPatch]] = {ItemKind.BUG: BugPatch, ItemKind.TASK: TaskPatch}
CREATED: dict[ItemKind, type[TaskCreated]] = {
    ItemKind.BUG: BugCreated,
    ItemKind.TASK: TaskCreated,
}
DETAILS: dict[ItemKind, type[TaskDetails]] = {
    ItemKind.BUG: BugDetails,
    ItemKind.TASK: TaskDetails,
}
PAGE: dict[ItemKind, type[TaskPage]] = {ItemKind.BUG: BugPage, ItemKind.TASK: TaskPage}

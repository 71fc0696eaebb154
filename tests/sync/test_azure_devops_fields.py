"""Work item fields in our terms and back as JSON Patch (sync.md §2), and failed answers as the
port's errors."""

from datetime import UTC, date, datetime

import pytest

from bot.fields.schemas import Category
from bot.sync.azure_devops import fields
from bot.sync.azure_devops.errors import failure
from bot.sync.source import (
    SourceChange,
    SourceError,
    SourceFields,
    SourceNotFound,
    SourcePerson,
    SourceRefused,
    SourceStale,
    SourceUnauthorized,
)

BUG_FIELDS = frozenset(
    {
        "System.Title", "System.Description", "Microsoft.VSTS.TCM.ReproSteps", "System.State",
        "Microsoft.VSTS.Common.Priority", "Microsoft.VSTS.Common.Severity", "System.AssignedTo",
        "Microsoft.VSTS.Common.ClosedDate", "System.ChangedDate",
    }
)  # fmt: skip
TASK_FIELDS = frozenset(
    {
        "System.Title", "System.Description", "System.State", "Microsoft.VSTS.Common.Priority",
        "System.AssignedTo", "Microsoft.VSTS.Scheduling.StartDate",
        "Microsoft.VSTS.Scheduling.DueDate",
    }
)  # fmt: skip

BUG = {
    "id": 42,
    "rev": 7,
    "fields": {
        "System.WorkItemType": "Bug",
        "System.Title": "Login fails",
        "System.Description": "<p>not this one</p>",
        "Microsoft.VSTS.TCM.ReproSteps": "<p>Open <a href='https://x.example/'>it</a></p>",
        "System.State": "Resolved",
        "Microsoft.VSTS.Common.Priority": 2,
        "Microsoft.VSTS.Common.Severity": "2 - High",
        "System.AssignedTo": {
            "id": "9a1c",
            "displayName": "Ada Lovelace",
            "uniqueName": "ada@contoso.com",
        },
        "Microsoft.VSTS.Common.ClosedDate": "2026-12-06T17:00:00.123Z",
        "System.ChangedDate": "2026-12-07T05:00:01.5Z",
        "System.ChangedBy": {"id": "77", "displayName": "Bo", "uniqueName": "bo@contoso.com"},
    },
}


def test_a_bug_reads_in_our_terms() -> None:
    item = fields.source_item(
        BUG, BUG_FIELDS, web_url="https://dev.azure.com/c/P/_workitems/edit/42"
    )
    assert item.id == "42" and item.item_type == "Bug" and item.version == "7"
    assert item.changed_at == datetime(2026, 12, 7, 5, 0, 1, 500000, tzinfo=UTC)
    assert item.changed_by == SourcePerson("77", "Bo", "bo@contoso.com")
    assert item.url == "https://dev.azure.com/c/P/_workitems/edit/42"
    got = item.fields
    assert got.title == "Login fails"
    assert got.body == "Open [it](https://x.example/)"  # a Bug's repro steps
    assert (got.state, got.priority, got.severity) == ("Resolved", "2", "2 - High")
    assert got.assignees == (SourcePerson("9a1c", "Ada Lovelace", "ada@contoso.com"),)
    assert got.completed_date == date(2026, 12, 6)
    assert got.start_date is None and got.due_date is None
    assert got.present == {
        "title", "body", "state", "priority", "severity", "assignees", "completed_date"
    }  # fmt: skip


def test_a_task_without_values_reads_empty() -> None:
    task = {"id": 5, "rev": 1, "fields": {"System.WorkItemType": "Task", "System.Title": "T"}}
    got = fields.source_item(task, TASK_FIELDS, web_url="u").fields
    assert (got.body, got.state, got.priority, got.assignees) == ("", None, None, ())
    assert "severity" not in got.present and {"start_date", "due_date"} <= got.present


def test_an_update_tests_the_rev_first_and_writes_only_the_changed_fields_the_type_has() -> None:
    change = SourceChange(
        item_type="Task",
        fields=SourceFields(
            title="New title",
            body="- a\n- b",
            priority="1",
            severity="1 - Critical",
            assignees=(SourcePerson("x", "Ada", "ada@contoso.com"), SourcePerson("y", "Bo")),
            due_date=date(2026, 12, 24),
            start_date=None,
        ),
        changed=frozenset(
            {"title", "body", "priority", "severity", "assignees", "due_date", "start_date"}
        ),
        version="7",
    )
    description = "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"
    due = "2026-12-24T00:00:00Z"
    assert fields.patch(change, TASK_FIELDS, creating=False) == [
        {"op": "test", "path": "/rev", "value": 7},
        {"op": "add", "path": "/fields/System.AssignedTo", "value": "ada@contoso.com"},
        {"op": "add", "path": "/fields/System.Description", "value": description},
        {"op": "add", "path": "/fields/Microsoft.VSTS.Scheduling.DueDate", "value": due},
        {"op": "add", "path": "/fields/Microsoft.VSTS.Common.Priority", "value": 1},
        {"op": "remove", "path": "/fields/Microsoft.VSTS.Scheduling.StartDate"},
        {"op": "add", "path": "/fields/System.Title", "value": "New title"},
    ]  # fmt: skip


def test_a_bug_body_goes_to_its_repro_steps_and_a_create_has_no_test_nor_clears() -> None:
    change = SourceChange(
        item_type="Bug",
        fields=SourceFields(title="T", body="Steps", state="New", assignees=()),
        changed=frozenset({"title", "body", "state", "assignees", "completed_date"}),
    )
    assert fields.patch(change, BUG_FIELDS, creating=True) == [
        {"op": "add", "path": "/fields/Microsoft.VSTS.TCM.ReproSteps", "value": "<p>Steps</p>"},
        {"op": "add", "path": "/fields/System.State", "value": "New"},
        {"op": "add", "path": "/fields/System.Title", "value": "T"},
    ]


def test_an_update_needs_its_version() -> None:
    change = SourceChange("Bug", SourceFields(title="T"), frozenset({"title"}))
    with pytest.raises(ValueError):
        fields.patch(change, BUG_FIELDS, creating=False)


def test_state_categories() -> None:
    assert fields.CATEGORIES == {
        "Proposed": Category.NEW,
        "InProgress": Category.ACTIVE,
        "Resolved": Category.ACTIVE,
        "Completed": Category.DONE,
        "Removed": Category.DONE,
    }


def test_an_identity_written_as_text() -> None:
    assert fields.person("Ada Lovelace <ada@contoso.com>") == SourcePerson(
        "ada@contoso.com", "Ada Lovelace", "ada@contoso.com"
    )
    assert fields.person(None) is None


REFUSAL = (
    '{"$id":"1","message":"TF401320: Rule Error for field Title.","typeName":"x",'
    '"typeKey":"RuleValidationException","errorCode":0}'
)


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, SourceUnauthorized),
        (403, SourceUnauthorized),
        (404, SourceNotFound),
        (412, SourceStale),
        (500, SourceError),
        (502, SourceError),
    ],
)
def test_answers_as_errors(status: int, kind: type[Exception]) -> None:
    error = failure(status, "", what="read work items")
    assert type(error) is kind
    assert f"read work items: Azure DevOps answered {status}" in str(error)


def test_a_refusal_keeps_the_vendors_code_and_message() -> None:
    error = failure(400, REFUSAL, what="update work item 3")
    assert isinstance(error, SourceRefused)
    assert (error.code, error.message) == (
        "RuleValidationException",
        "TF401320: Rule Error for field Title.",
    )

"""The sources `python -m bot admin demo` can serve beside itself (`demo_sync`): each one's
stand-in, the same six items in its own terms, how the demo project links to it, and a change
made there by hand."""

from typing import Any, ClassVar

import aiohttp

from bot.cli.demo_sync import DemoSource
from bot.demo import USERS
from bot.sync.azure_devops.html_text import to_html
from bot.sync.jira.adf import to_adf
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from bot.sync.standins.jira import JiraStandin
from bot.sync.standins.planner import PlannerStandin
from bot.sync.standins.planner.server import SCOPE

# The items "there" at the start, a bug and a task in turn where the source has both: title,
# stage (new, active, resolved, done), urgency (0 the most urgent of four), assignee (an index
# into the demo's people, or None), description (Markdown, as the item's body keeps it).
ITEMS = [
    ("Checkout times out for carts over 50 items", "active", 0, 0,
     "Steps:\n\n1. Add 51 items\n2. Pay\n\nGateway answers 504."),
    ("Rotate the storage account keys", "new", 1, 0,
     "Due every 90 days; see [the runbook](https://example.com/runbook)."),
    ("Invoice PDF shows the wrong VAT rate", "new", 1, 1,
     "Rate is 19 % for `DE` customers; the PDF prints 16 %."),
    ("Write release notes for 2.4", "active", 2, 1, "- New dashboard\n- Faster search"),
    ("Password reset mail lands in spam", "resolved", 2, None,
     "SPF record is missing the new mail relay."),
    ("Archive last year's sprint boards", "done", 3, None, "Done in October."),
]  # fmt: skip
RENAME = "Renamed there"


class AzureDevOpsDemo(DemoSource[AzureDevOpsStandin]):
    name, option, default_port = "Azure DevOps", "azure-devops", 8090
    kind, display_name = "Microsoft.Vsts", "Fabrikam"
    STATES: ClassVar = {"new": "New", "active": "Active", "resolved": "Resolved", "done": "Closed"}

    def make(self) -> AzureDevOpsStandin:
        return AzureDevOpsStandin(project="Fabrikam")

    def seed(self) -> None:
        people = [f"{name} <{email}>" for _, email, name in USERS]
        rows = [
            {
                "System.Title": title,
                "System.State": self.STATES[stage],
                "Microsoft.VSTS.Common.Priority": urgency + 1,
                "System.AssignedTo": people[who] if who is not None else None,
                # A bug's description is its repro steps (sync.md, fields).
                "Microsoft.VSTS.TCM.ReproSteps" if n % 2 == 0 else "System.Description": to_html(
                    text
                ),
            }
            for n, (title, stage, urgency, who, text) in enumerate(ITEMS)
        ]
        self.standin.seed(len(rows), types=("Bug", "Task"), fields=lambda n: rows[n])

    def link_body(self) -> dict[str, Any]:
        standin = self.standin
        return {"sourceId": standin.project, "hostname": standin.org_url, "token": standin.token}

    def said(self) -> dict[str, Any]:
        standin = self.standin
        first = min(standin.store.items)
        return {
            "azureDevOps": standin.org_url,
            "azureDevOpsProject": standin.project,
            "token": standin.token,
            "changeThere": f"curl -s -u :{standin.token} -X PATCH "
            "-H 'Content-Type: application/json-patch+json' "
            f"'{standin.org_url}/{standin.project}/_apis/wit/workitems/{first}?api-version=7.1' "
            f"""-d '[{{"op": "add", "path": "/fields/System.Title", "value": "{RENAME}"}}]'""",
        }


class JiraDemo(DemoSource[JiraStandin]):
    """Jira registers no webhook on linking (only an administrator may): the demo does it, as
    docs/sync-jira.md tells an administrator to, with a hook secret made for this run."""

    name, option, default_port = "Jira", "jira", 8091
    kind, display_name = "Jira", "Fabrikam Jira"
    STATUSES: ClassVar = {"new": "To Do", "active": "In Progress", "resolved": "In Review"}
    PRIORITIES = ("Highest", "High", "Medium", "Low")

    def make(self) -> JiraStandin:
        return JiraStandin(project="FAB")

    def seed(self) -> None:
        for _, email, name in USERS:
            self.standin.add_user(name, email)

        def values(n: int) -> dict[str, Any]:
            title, stage, urgency, who, text = ITEMS[n]
            return {
                "summary": title,
                "status": self.STATUSES.get(stage, "Done"),
                "priority": self.PRIORITIES[urgency],
                "assignee": USERS[who][1] if who is not None else None,
                "description": to_adf(text),
            }

        self.standin.seed(len(ITEMS), types=("Bug", "Task"), values=values)

    def link_body(self) -> dict[str, Any]:
        standin = self.standin
        return {
            "sourceId": standin.project,
            "hostname": standin.base_url,
            "email": standin.email,
            "token": standin.token,
        }

    async def linked(self, http: aiohttp.ClientSession, app_url: str, project_id: str) -> None:
        async with http.post(f"/api/projects/{project_id}/sync/hook-secret") as made:
            if made.status != 200:
                raise RuntimeError(f"no hook secret for the demo project ({made.status})")
            secret = (await made.json())["hookSecret"]
        self.standin.add_webhook(f"{app_url}/api/sync/hooks/{project_id}", secret)

    def said(self) -> dict[str, Any]:
        standin = self.standin
        first = standin.issues[0].key
        return {
            "jira": standin.base_url,
            "jiraProject": standin.project,
            "email": standin.email,
            "token": standin.token,
            "changeThere": f"curl -s -u {standin.email}:{standin.token} -X PUT "
            "-H 'Content-Type: application/json' "
            f"'{standin.base_url}/rest/api/3/issue/{first}' "
            f"""-d '{{"fields": {{"summary": "{RENAME}"}}}}'""",
        }


class PlannerDemo(DemoSource[PlannerStandin]):
    """Planner syncs tasks only, and has no change notifications: a change there arrives by the
    next poll (every 15 s here)."""

    name, option, default_port = "Planner", "planner", 8092
    kind, display_name, listed = "Microsoft.Planner", "Fabrikam plan", "tasks"
    PERCENT: ClassVar = {"new": 0, "active": 50, "resolved": 50, "done": 100}
    PRIORITIES = (1, 3, 5, 9)  # urgent, important, medium, low

    def make(self) -> PlannerStandin:
        return PlannerStandin()

    def seed(self) -> None:
        for n, (title, stage, urgency, who, text) in enumerate(ITEMS):
            self.standin.create(
                title,
                # The same ids each run (28 characters, as Planner's), so a run after the first
                # finds its tasks linked already.
                task_id=f"demo-task-{n}".ljust(28, "0"),
                description=text,
                percentComplete=self.PERCENT[stage],
                priority=self.PRIORITIES[urgency],
                assignments={USERS[who][0]: {}} if who is not None else {},
            )

    def link_body(self) -> dict[str, Any]:
        standin = self.standin
        return {
            "sourceId": standin.plan_id,
            "hostname": standin.graph_url,
            "tenantId": standin.tenant_id,
            "clientId": standin.client_id,
            "clientSecret": standin.client_secret,
        }

    def app_settings(self) -> dict[str, Any]:
        return {"entra_authority_url": self.standin.authority_url}

    def said(self) -> dict[str, Any]:
        standin = self.standin
        first = next(iter(standin.store.tasks))
        task_url = f"{standin.graph_url}/planner/tasks/{first}"
        field = "python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])'"
        return {
            "planner": standin.graph_url,
            "entraAuthority": standin.authority_url,
            "plan": standin.plan_id,
            "tenantId": standin.tenant_id,
            "clientId": standin.client_id,
            "clientSecret": standin.client_secret,
            # A token, the task's ETag, then the change with If-Match, as Graph asks.
            "changeThere": f"T=$(curl -s -d grant_type=client_credentials "
            f"-d client_id={standin.client_id} -d client_secret={standin.client_secret} "
            f"--data-urlencode scope={SCOPE} "
            f"'{standin.authority_url}/{standin.tenant_id}/oauth2/v2.0/token' "
            f"| {field} access_token); "
            f"""E=$(curl -s -H "Authorization: Bearer $T" '{task_url}' | {field} @odata.etag); """
            f"""curl -s -X PATCH -H "Authorization: Bearer $T" -H "If-Match: $E" """
            f"-H 'Content-Type: application/json' '{task_url}' "
            f"""-d '{{"title": "{RENAME}"}}'""",
        }


SOURCES: dict[str, type[DemoSource[Any]]] = {
    source.option: source for source in (AzureDevOpsDemo, JiraDemo, PlannerDemo)
}

"""The two sources whose comments travel, behind one face for the comment tests: a bug linked
to an item there, comments made, edited and deleted there as a user there would, and their
words there read back as the body's text (what a user there reads, whatever the markup)."""

from dataclasses import dataclass
from typing import Any

from bot.sync.azure_devops.html_text import to_html
from bot.sync.azure_devops.html_text import to_text as ado_text
from bot.sync.jira.adf import to_adf
from bot.sync.jira.adf import to_text as adf_text
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from bot.sync.standins.jira import JiraStandin
from bot.sync.standins.wire import LocalSource
from tests.discussions.helpers import Desk
from tests.sync.jira_fixtures import link_jira
from tests.sync.linking import bugs, link
from tests.teams.activities import GRACE

GRACE_THERE = f"{GRACE.name} <{GRACE.upn}>"  # Azure DevOps names its users so


@dataclass
class There:
    """One source's stand-in, and the item linked there."""

    standin: AzureDevOpsStandin | JiraStandin
    item: Any = None  # the work item id, or the issue key

    @property
    def local(self) -> LocalSource:
        return self.standin

    @property
    def edit_method(self) -> str:
        return "PATCH" if isinstance(self.standin, AzureDevOpsStandin) else "PUT"

    @property
    def comments_path(self) -> str:
        return "/comments" if isinstance(self.standin, AzureDevOpsStandin) else "/comment"

    async def linked_bug(self, desk: Desk) -> dict[str, Any]:
        """One item there, linked; its bug here."""
        if isinstance(self.standin, AzureDevOpsStandin):
            (self.item,) = self.standin.seed(1, types=("Bug",))
            await link(desk.client, desk.ada, self.standin)
        else:
            (self.item,) = self.standin.seed(1, types=("Bug",))
            await link_jira(desk.client, desk.ada, self.standin)
        (bug,) = await bugs(desk.client, desk.ada)
        return bug

    def say(self, text: str) -> str:
        """A comment made there by Grace (`text` as the body's Markdown); its id."""
        if isinstance(self.standin, AzureDevOpsStandin):
            return str(self.standin.comment(self.item, to_html(text), by=GRACE_THERE))
        known = [u for u in self.standin.users.values() if u.email == GRACE.upn]
        grace = known[0] if known else self.standin.add_user(GRACE.name, GRACE.upn)
        return self.standin.comment(self.item, to_adf(text) or {}, by=grace).id

    def say_raw(self, markup: Any) -> str:
        """A comment made there in the source's own markup (HTML; ADF)."""
        if isinstance(self.standin, AzureDevOpsStandin):
            return str(self.standin.comment(self.item, markup, by=GRACE_THERE))
        return self.standin.comment(self.item, markup).id

    def edit(self, comment_id: str, text: str) -> None:
        if isinstance(self.standin, AzureDevOpsStandin):
            self.standin.edit_comment(self.item, int(comment_id), to_html(text), by=GRACE_THERE)
        else:
            self.standin.edit_comment(self.item, comment_id, to_adf(text) or {})

    def delete(self, comment_id: str) -> None:
        if isinstance(self.standin, AzureDevOpsStandin):
            self.standin.delete_comment(self.item, int(comment_id), by=GRACE_THERE)
        else:
            self.standin.delete_comment(self.item, comment_id)

    def texts(self) -> list[str]:
        """The item's comments there, as the body's text."""
        if isinstance(self.standin, AzureDevOpsStandin):
            return [ado_text(c["text"]) for c in self.standin.comments(self.item)]
        issue = self.standin.issue(self.item)
        assert issue is not None
        return [adf_text(c.body) for c in issue.comments]

    def sent(self, method: str) -> list[int]:
        """The statuses of the comment requests of one method the source answered."""
        path = self.comments_path
        return [x.status for x in self.local.exchanges_to(method, path)]

"""The Jira connector through real HTTP against the local Jira; every exchange is checked
against Jira's published description when the stand-in stops (tests/sync/jira_fixtures.py)."""

from collections.abc import AsyncIterator
from datetime import date, timedelta

import aiohttp
import pytest

from bot.clock import FrozenClock
from bot.events import ssrf
from bot.fields.schemas import Category
from bot.sync.address import source_http
from bot.sync.jira import JiraSource, open_source
from bot.sync.jira.adf import to_adf
from bot.sync.pacer import HostPacer
from bot.sync.source import (
    SourceChange,
    SourceError,
    SourceFields,
    SourceNotFound,
    SourcePerson,
    SourceRefused,
    SourceStale,
    SourceThrottled,
    SourceUnauthorized,
)
from bot.sync.standins.jira import HIDDEN, SOMEONE_ELSE, JiraStandin
from tests.sync.jira_fixtures import MakeJira, jira, make_jira

__all__ = ["jira", "make_jira"]

LOOPBACK = ssrf.AllowList.parse(["127.0.0.1"])
TYPES = ("Bug", "Task")


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with source_http(LOOPBACK) as session:
        yield session


def source_of(
    standin: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock, token: str = ""
) -> JiraSource:
    source = open_source(
        http,
        hostname=standin.base_url,
        source_id=standin.project,
        email=standin.email,
        token=token or standin.token,
        allowed=LOOPBACK,
        clock=clock,
    )
    source._client._pacer = HostPacer()  # each test its own pacing
    return source


def edit(item_type: str = "Bug", version: str | None = None, **values: object) -> SourceChange:
    fields = SourceFields(**{"title": "T", **values})  # type: ignore[arg-type]
    return SourceChange(item_type, fields, frozenset(values), version=version)


async def test_check_reads_the_project_and_refuses_bad_credentials_or_keys(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    project = await source_of(jira, http, clock).check()
    assert (project.id, project.name) == ("10000", "Fabrikam")
    assert project.url == f"{jira.base_url}/browse/FAB"
    with pytest.raises(SourceUnauthorized) as refused:
        await source_of(jira, http, clock, token="wrong").check()
    assert "wrong" not in refused.value.message
    other = open_source(
        http,
        hostname=jira.base_url,
        source_id="NOPE",
        email=jira.email,
        token=jira.token,
        allowed=LOOPBACK,
        clock=clock,
    )
    with pytest.raises(SourceNotFound):
        await other.check()


async def test_states_are_the_statuses_of_the_type_with_their_categories(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    states = await source_of(jira, http, clock).states("Bug")
    assert [(s.id, s.name, s.category) for s in states] == [
        ("10000", "To Do", Category.NEW),
        ("10001", "In Progress", Category.ACTIVE),
        ("10002", "In Review", Category.ACTIVE),
        ("10003", "Done", Category.DONE),
    ]


async def test_pulls_page_by_token_oldest_first_each_issue_once(
    make_jira: MakeJira, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    standin: JiraStandin = await make_jira(clock=clock, page_limit=2)
    standin.seed(3, types=TYPES)
    source = source_of(standin, http, clock)
    pages = [page async for page in source.changed_since(None, item_types=TYPES, query=None)]
    assert [[i.id for i in p.items] for p in pages] == [["FAB-1", "FAB-2"], ["FAB-3"]]
    assert await source.ids_in_scope(item_types=TYPES, query=None) == {"FAB-1", "FAB-2", "FAB-3"}
    # Cut short after the first page, a pull goes on from there: FAB-3 shares its time.
    resumed = [p async for p in source.changed_since(pages[0].cursor, item_types=TYPES, query=None)]
    assert "FAB-3" in [i.id for p in resumed for i in p.items]
    cursor = pages[-1].cursor
    clock.advance(timedelta(minutes=10))
    standin.change("FAB-2", summary="Later")
    (page,) = [p async for p in source.changed_since(cursor, item_types=TYPES, query=None)]
    assert [i.id for i in page.items] == ["FAB-2"]
    assert page.items[0].fields.title == "Later"
    assert page.cursor > cursor


async def test_an_issue_reads_in_our_terms(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    (key,) = jira.seed(
        1,
        types=("Bug",),
        values=lambda _: {
            "status": "Done",
            "priority": "High",
            "assignee": SOMEONE_ELSE.email,
            "duedate": date(2026, 12, 24),
            "description": to_adf("Some **bold** text"),
        },
    )
    (item,) = await source_of(jira, http, clock).read([key, "FAB-99"])
    assert (item.id, item.item_type, item.fields.title) == (key, "Bug", "Issue 0")
    assert item.fields.body == "Some **bold** text"
    assert (item.fields.state, item.fields.priority) == ("10003", "High")
    assert item.fields.assignees == (
        SourcePerson(SOMEONE_ELSE.account_id, "Riley Source", SOMEONE_ELSE.email),
    )
    assert (item.fields.due_date, item.fields.completed_date) == (
        date(2026, 12, 24),
        date(2026, 12, 7),
    )
    assert item.url == f"{jira.base_url}/browse/{key}"


async def test_create_sets_the_fields_and_moves_to_the_status(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    source = source_of(jira, http, clock)
    change = SourceChange(
        "Task",
        SourceFields(
            title="Made here",
            body="- a\n- b",
            state="10001",
            priority="Low",
            assignees=(SourcePerson(SOMEONE_ELSE.email, "Riley", SOMEONE_ELSE.email),),
            due_date=date(2027, 1, 2),
        ),
        frozenset({"title", "body", "state", "priority", "assignees", "due_date"}),
    )
    made = await source.create(change)
    issue = jira.issue(made.id)
    assert issue is not None
    assert (issue.summary, issue.priority, issue.assignee) == (
        "Made here",
        "Low",
        SOMEONE_ELSE.account_id,
    )
    assert jira.status_of(made.id) == "In Progress"
    assert made.fields.body == "- a\n- b"
    (found,) = await source.find_created(change, since=clock.now() - timedelta(minutes=1))
    assert found.id == made.id


async def test_update_is_refused_as_stale_when_updated_moved(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    (key,) = jira.seed(1, types=("Bug",))
    source = source_of(jira, http, clock)
    (item,) = await source.read([key])
    jira.change(key, summary="There")
    with pytest.raises(SourceStale):
        await source.update(key, edit(version=item.version, title="Here"))
    assert jira.exchanges_to("PUT") == []
    (fresh,) = await source.read([key])
    done = await source.update(key, edit(version=fresh.version, title="Here"))
    assert done.fields.title == "Here"


async def test_a_status_already_mapped_sends_nothing_and_a_missing_one_is_refused(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    (key,) = jira.seed(1, types=("Bug",), values=lambda _: {"status": "In Progress"})
    source = source_of(jira, http, clock)
    (item,) = await source.read([key])
    active = edit(version=item.version, state="10002")
    same = SourceChange(
        "Bug", active.fields, active.changed, item.version, frozenset({"10001", "10002"})
    )
    await source.update(key, same)
    assert jira.exchanges_to("POST", "/transitions") == []
    jira.remove_transitions(to="Done")
    with pytest.raises(SourceRefused) as refused:
        await source.update(key, edit(version=item.version, state="10003"))
    assert refused.value.code == "Svc_TRANSITION_NOTFOUND"
    assert "In Review, To Do" in refused.value.message
    assert jira.status_of(key) == "In Progress"


async def test_an_assignee_whose_email_jira_hides_is_refused_by_name(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    (key,) = jira.seed(1, types=("Bug",))
    source = source_of(jira, http, clock)
    (item,) = await source.read([key])
    hidden = (SourcePerson(HIDDEN.email, HIDDEN.display_name, HIDDEN.email),)
    with pytest.raises(SourceRefused) as refused:
        await source.update(key, edit(version=item.version, assignees=hidden))
    assert "Quinn Private" in refused.value.message
    assert jira.exchanges_to("PUT") == []


async def test_delete_twice_and_comments_with_the_authors_name(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    (key,) = jira.seed(1, types=("Bug",))
    source = source_of(jira, http, clock)
    jira.comment(key, to_adf("Seen it") or {})
    said = await source.add_comment(key, "Fixed in `main`", author_name="Ada Lovelace")
    assert said.text == "**Ada Lovelace**:\n\nFixed in `main`"
    comments = await source.comments(key)
    assert [(c.author.display_name if c.author else None, c.text) for c in comments] == [
        ("Riley Source", "Seen it"),
        ("Tracker Bot", "**Ada Lovelace**:\n\nFixed in `main`"),
    ]
    await source.delete(key)
    await source.delete(key)
    assert jira.issue(key) is None


async def test_webhooks_are_left_to_a_jira_administrator(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    made = await source_of(jira, http, clock).register_hooks("https://bot.example/h", "secret")
    assert made.ids == []
    assert made.problem is not None and "https://bot.example/h" in made.problem
    assert "secret" not in made.problem.replace("hook secret", "")


async def test_429_holds_the_site_for_its_retry_after_and_5xx_is_worth_retrying(
    jira: JiraStandin, http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    source = source_of(jira, http, clock)
    jira.fail_next(status=429, retry_after=30)
    with pytest.raises(SourceThrottled) as throttled:
        await source.check()
    assert throttled.value.retry_after == 30
    sent = len(jira.exchanges)
    with pytest.raises(SourceThrottled):
        await source.check()
    assert len(jira.exchanges) == sent  # held: nothing sent
    clock.advance(timedelta(seconds=30))
    jira.fail_next(status=502)
    with pytest.raises(SourceError):
        await source.check()
    hang = jira.hang_next()
    checking = source.check()
    import asyncio

    task = asyncio.ensure_future(checking)
    await hang.arrived.wait()
    hang.release()
    assert (await task).id == "10000"

"""Sync on cards: where a synced item lives and its problem, a channel's synced projects, the
notice of a paused sync."""

from typing import Any

from bot.sync.whereabouts import source_item_url, synced_at
from cards.item import item_card
from cards.layout import Card
from cards.sync import SHOWN_MAX, sync_card, sync_paused_card
from tests.cards.samples import details, statuses, text_of, walk
from tests.cards.sync_samples import LATER, LONGEST_PROJECTS, PAUSED, URL, project, synced_item


def card_of(item: Any, **options: Any) -> Card:
    return item_card(item, item_url=URL, statuses=statuses(), synced=synced_at(item, **options))


def links_at_source(card: Card) -> list[str]:
    return [
        node["selectAction"]["url"]
        for node in walk(card)
        if node.get("type") == "TextRun" and "selectAction" in node
    ]


def test_a_synced_item_links_to_its_work_item_in_azure_devops() -> None:
    card = card_of(synced_item(source_id="42"))
    assert links_at_source(card) == [
        "https://dev.azure.com/contoso/Fabrikam%20Web/_workitems/edit/42"
    ]
    assert "Synced with \nAzure DevOps 42" in text_of(card)
    assert "Not synced" not in text_of(card) and "Waiting" not in text_of(card)


def test_a_bare_host_is_linked_over_https() -> None:
    assert (
        source_item_url("Microsoft.Vsts", "dev.azure.com/contoso/", "Fabrikam", "7")
        == "https://dev.azure.com/contoso/Fabrikam/_workitems/edit/7"
    )
    assert source_item_url("Jira", "https://contoso.atlassian.net", "ABC", "ABC-12") == (
        "https://contoso.atlassian.net/browse/ABC-12"
    )
    assert source_item_url("Microsoft.Planner", "graph.microsoft.com", "plan", "t1") is None


def test_items_that_do_not_sync_look_as_before() -> None:
    native = details()
    assert synced_at(native) is None
    assert card_of(native) == item_card(native, item_url=URL, statuses=statuses())
    never_sent = details(source="Microsoft.Vsts", sourceId=native.id)  # a project that never synced
    assert synced_at(never_sent) is None


def test_each_sync_problem_is_said_on_the_card() -> None:
    waiting = card_of(synced_item(source_id=None, status="Svc_PENDING"))
    assert "Waiting to be sent to Azure DevOps" in text_of(waiting)
    assert links_at_source(waiting) == []  # not made there yet: nothing to link to
    unmapped = card_of(synced_item(status="Svc_MAPPING_NOTFOUND"), source_state="Resolved")
    assert "Not synced: no mapping for state Resolved" in text_of(unmapped)
    assert "Not synced: no mapping for its Azure DevOps state" in text_of(
        card_of(synced_item(status="Svc_MAPPING_NOTFOUND"))
    )
    refused = card_of(
        synced_item(status="Svc_SOURCE_ERROR", code="VS403", message="Field Title is too long.")
    )
    assert "Not synced: Azure DevOps refused the change: Field Title is too long." in text_of(
        refused
    )
    assert links_at_source(refused) == [
        "https://dev.azure.com/contoso/Fabrikam%20Web/_workitems/edit/42"
    ]


def test_a_running_project_offers_sync_now_and_a_paused_one_says_what_to_do() -> None:
    card = sync_card([project(pending=3), PAUSED], now=LATER)
    text = text_of(card)
    assert "Fabrikam" in text and "Contoso *web*" in text
    assert "Running" in text and "Paused" in text
    assert "3 changes" in text and "120 imported · 4 pulled · 2 pushed" in text
    assert "Last error (5 min ago): Unauthorized: TF400813" in text
    assert "Save new credentials on the project" in text
    buttons = [node for node in walk(card) if node.get("type") == "Action.Execute"]
    assert [button["data"]["command"] for button in buttons] == ["sync Fabrikam now"]


def test_many_projects_show_the_first_and_say_how_to_see_the_rest() -> None:
    card = sync_card(LONGEST_PROJECTS, now=LATER)
    shown = sum(1 for node in walk(card) if node.get("text") == "Failing: retried later")
    assert 1 <= shown <= SHOWN_MAX
    assert f"And {len(LONGEST_PROJECTS) - shown} more: type " in text_of(card)


def test_the_paused_notice_names_the_project_why_and_what_to_do() -> None:
    text = text_of(
        sync_paused_card(
            project="Fabrikam",
            project_id="0123456789abcdef01234567",
            source="Microsoft.Vsts",
            reason="TF400813: The user is not authorized to access this resource.",
        )
    )
    assert "Fabrikam" in text
    assert "Azure DevOps refused the credentials: TF400813" in text
    assert "PATCH /api/projects/0123456789abcdef01234567" in text

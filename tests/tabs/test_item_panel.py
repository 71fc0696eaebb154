"""The item panel in Chromium: open an item from the board, edit its fields, upload a file and
download it; New bug from the tab; a title full of markup is text everywhere."""

from pathlib import Path

from sqlalchemy import update

from bot.db.tables import Item
from tests.factories import Factory
from tests.pages.chromium import Browser
from tests.tabs.browser import open_tab
from tests.tabs.conftest import Rig

MARKUP = "<img src=x onerror=alert(1)><script>alert(2)</script><b>bold</b>"


async def test_an_item_opens_and_its_fields_are_edited(
    rig: Rig, browser: Browser, tmp_path: Path
) -> None:
    bug = await rig.bug("Typo on the home page")
    panel = "document.querySelector('dialog.panel[open]')"
    async with open_tab(browser, rig.channel_url(), rig.member.cookie) as tab:
        await tab.until(f"document.querySelector('li.card[data-id=\"{bug['_id']}\"]')")
        await tab.run(f"document.querySelector('li.card[data-id=\"{bug['_id']}\"]').focus()")
        await tab.press("Enter")
        await tab.until(
            f"{panel}?.querySelector('input[name=name]')?.value === 'Typo on the home page'"
        )
        assert await tab.run(f"{panel}.querySelector('h2').innerText") == "Bug #1"
        await tab.run(
            f"""(() => {{ const form = {panel}.querySelector('form.item-form');
            form.elements.name.value = 'Typo on the landing page';
            form.elements.priority.value = 'Urgent';
            form.elements.dueDate.value = '2026-12-24';
            form.elements.owner.value = 'Web team';
            form.elements.assignedTo.options[0].selected = true;
            form.requestSubmit(); }})()"""
        )
        await tab.until(f"{panel}.querySelector('.saved').textContent === 'Saved.'")
        details = await rig.api("GET", f"/api/bugs/{bug['_id']}/details")
        assert details["name"] == "Typo on the landing page"
        assert details["priority"] == "Urgent"
        assert details["dueDate"] == "2026-12-24T00:00:00.000Z"
        assert details["owner"] == "Web team"
        assert [user["displayName"] for user in details["assignedTo"]] == ["Ada Lovelace"]
        assert details["status"] == "Not Started"  # untouched fields are not sent

        # A refused edit says why and changes nothing.
        await tab.run(
            f"""(() => {{ const form = {panel}.querySelector('form.item-form');
            form.elements.startDate.value = '2026-12-30'; form.requestSubmit(); }})()"""
        )
        error = await tab.until(
            f"{panel}.querySelector('form.item-form .error:not([hidden])')?.textContent"
        )
        assert "dueDate" in error or "startDate" in error
        assert (await rig.api("GET", f"/api/bugs/{bug['_id']}/details"))["startDate"] is None

        report = tmp_path / "report.txt"
        report.write_text("the steps to reproduce")
        await tab.attach("dialog.panel[open] input[type=file]", str(report))
        await tab.until(f"{panel}.querySelector('ul.files a')?.textContent === 'report.txt'")
        downloaded = await tab.run(
            f"fetch({panel}.querySelector('ul.files a').href).then((r) => r.text())"
        )
        assert downloaded == "the steps to reproduce"

        await tab.run(f"{panel}.querySelector('button.close').click()")
        await tab.until(
            f"document.querySelector('li.card[data-id=\"{bug['_id']}\"] .title')"
            "?.textContent === 'Typo on the landing page'"
        )
        assert await tab.run(
            f"document.querySelector('li.card[data-id=\"{bug['_id']}\"] .due').textContent"
        ) in ("Due Dec 24, 2026", "Overdue: due Dec 24, 2026")


async def test_new_bug_from_the_tab_appears_at_once(rig: Rig, browser: Browser) -> None:
    async with open_tab(browser, rig.channel_url(), rig.member.cookie) as tab:
        await tab.until("document.querySelector('main').getAttribute('aria-busy') === 'false'")
        await tab.run("document.querySelector('header button.primary').click()")
        await tab.until("document.querySelector('dialog.panel[open] input[name=name]')")
        await tab.run(
            """(() => { const form = document.querySelector('dialog.panel[open] form');
            form.elements.name.value = 'Made in the tab'; form.elements.priority.value = 'High';
            form.requestSubmit(); })()"""
        )
        await tab.until(
            "[...document.querySelectorAll('section.column[data-status=\"Not Started\"] li.card')]"
            ".some((card) => card.innerText.includes('Made in the tab'))"
        )
    made = (await rig.api("GET", "/odata/bugs"))["value"]
    assert [(item["name"], item["priority"]) for item in made] == [("Made in the tab", "High")]


async def test_a_title_full_of_markup_is_shown_as_text(rig: Rig, browser: Browser) -> None:
    bug = await rig.bug(MARKUP, body=MARKUP)
    for view in ("board", "list"):
        async with open_tab(browser, rig.channel_url(view=view), rig.member.cookie) as tab:
            await tab.until(f"document.body.innerText.includes({MARKUP!r})")
            await tab.run("document.querySelector('.title').click()")
            await tab.until(
                f"document.querySelector('dialog.panel[open] textarea')?.value === {MARKUP!r}"
            )
            tags = await tab.run("[...document.body.querySelectorAll('img, script, b')].length")
            assert tags == 0
            assert tab.dialogs() == []
    assert bug["name"] == MARKUP


async def test_a_synced_items_panel_says_where_it_lives_and_its_problem(
    rig: Rig, browser: Browser, factory: Factory
) -> None:
    project = await rig.api(
        "POST",
        "/api/projects",
        json={
            "displayName": "Storefront",
            "source": "Jira",
            "sourceId": "ABC",
            "hostname": "contoso.atlassian.net",
            "states": [{"id": "1", "name": "To Do", "category": "New"}],
        },
    )
    linked = await rig.bug("Made there", projectId=project["_id"])
    waiting = await rig.bug("Not there yet", projectId=project["_id"])
    async with factory.work() as uow:
        await uow.execute(update(Item).where(Item.id == linked["_id"]).values(source_id="ABC-12"))
        await uow.execute(
            update(Item).where(Item.id == waiting["_id"]).values(sync_status="Svc_PENDING")
        )
    panel = "document.querySelector('dialog.panel[open]')"
    async with open_tab(browser, rig.channel_url(), rig.member.cookie) as tab:
        for bug in (linked, waiting):
            await tab.until(f"document.querySelector('li.card[data-id=\"{bug['_id']}\"]')")
        await tab.run(f"document.querySelector('li.card[data-id=\"{linked['_id']}\"]').focus()")
        await tab.press("Enter")
        where = await tab.until(f"{panel}?.querySelector('.where .synced')?.innerText")
        assert where == "Synced with Jira ABC-12"
        link = await tab.run(f"{panel}.querySelector('.where a').href")
        assert link == "https://contoso.atlassian.net/browse/ABC-12"
        await tab.press("Escape")
        await tab.until(f"!{panel}")
        await tab.run(f"document.querySelector('li.card[data-id=\"{waiting['_id']}\"]').focus()")
        await tab.press("Enter")
        said = await tab.until(f"{panel}?.querySelector('.where .synced')?.innerText")
        assert said.strip() == "Waiting to be sent to Jira"

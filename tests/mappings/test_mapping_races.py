"""Mapping creates that race: a source value is mapped once, the others get the duplicate 400.
Each create locks its project's row first, a row that exists before any of them, so on
PostgreSQL the check of the second runs after the first committed; SQLite's writers take turns."""

import asyncio
import json

from sqlalchemy import func, select

from bot.db.tables import FieldMapping
from tests.factories import Factory
from tests.items.test_concurrency import send
from tests.mappings.helpers import DUPLICATE, add_status, unmap
from tests.projects.bodies import add_project, jira


async def test_20_parallel_mappings_of_one_source_state_make_one(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await unmap(client, ada, project["_id"], "Bug", "3")
    review = await add_status(client, ada, "Review")
    body = {
        "fieldId": review,
        "projectId": project["_id"],
        "sourceId": "3",
        "type": "status",
        "entityType": "Bug",
    }
    answers = await asyncio.gather(
        *(
            send(client, "POST", "/odata/_fieldMappings", json=body, headers=ada.in_channel())
            for _ in range(20)
        )
    )
    assert sorted(status for status, _ in answers) == [201] + [400] * 19, answers
    assert all(json.loads(text) == DUPLICATE for status, text in answers if status == 400)
    async with factory.work() as uow:
        rows = await uow.session.scalar(
            select(func.count()).where(
                FieldMapping.project_id == project["_id"],
                FieldMapping.entity_type == "Bug",
                FieldMapping.source_value_id == "3",
            )
        )
    assert rows == 1

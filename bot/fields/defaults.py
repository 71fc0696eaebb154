"""The statuses, priorities and severities every channel starts with (docs/api.md)."""

from dataclasses import dataclass

from bot.fields.schemas import Category


@dataclass(frozen=True)
class Default:
    name: str
    color: str
    value: int
    primary: bool = False
    category: Category | None = None


STATUSES = [
    Default("Not Started", "#8a8886", 0, primary=True, category=Category.NEW),
    Default("In Progress", "#0078d4", 50, category=Category.ACTIVE),
    Default("Completed", "#107c10", 100, category=Category.DONE),
]
# Values rank urgency, so sorting by value puts the most pressing first when descending.
PRIORITIES = [
    Default("Urgent", "#d13438", 3),
    Default("High", "#ff8c00", 2),
    Default("Normal", "#0078d4", 1, primary=True),
    Default("Low", "#8a8886", 0),
]
SEVERITIES = [
    Default("Critical", "#d13438", 3),
    Default("High", "#ff8c00", 2),
    Default("Medium", "#0078d4", 1, primary=True),
    Default("Low", "#8a8886", 0),
]

"""/metrics read as Prometheus reads it: every sample by name and labels."""

from aiohttp.test_utils import TestClient
from prometheus_client.parser import text_string_to_metric_families


class Samples:
    def __init__(self, text: str) -> None:
        self.text = text
        self._values = {
            (sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        }

    def value(self, name: str, **labels: str) -> float | None:
        """The sample's value; None when the page has no such sample."""
        return self._values.get((name, frozenset(labels.items())))

    def count(self, name: str, **labels: str) -> float:
        """A counter's value, 0 before its first count."""
        return self.value(name, **labels) or 0.0


async def scrape(client: TestClient, headers: dict[str, str] | None = None) -> Samples:
    response = await client.get("/metrics", headers=headers)
    assert response.status == 200, await response.text()
    return Samples(await response.text())

"""What the app counts for /metrics, in a registry of its own (not the process-wide default, so
tests and several apps in one process count apart): requests by method, route template (never the
raw path: ids would make a series each) and status, with their latency; and the background
outcomes (`bot.outcomes`). `bot.web.metrics_page` serves them with what it reads at scrape time.
"""

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector

from bot.outcomes import Outcomes

# Most answers take a millisecond or a few; a list over many rows, tens; a Teams wait, seconds.
REQUEST_SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """One app's registry and what it counts as it happens."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "tracker_http_requests",
            "HTTP requests answered, by method, route template and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "tracker_http_request_duration_seconds",
            "How long requests took to answer, by method and route template",
            ["method", "route"],
            buckets=REQUEST_SECONDS,
            registry=self.registry,
        )
        # Each request's two series, found once: `labels()` cost a request more than counting.
        self._series: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}
        self.outcomes = Outcomes(self.registry)
        ProcessCollector(registry=self.registry)  # memory, CPU, open files of this process

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, status)
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = (
                self.requests.labels(method, route, str(status)),
                self.latency.labels(method, route),
            )
        series[0].inc()
        series[1].observe(seconds)

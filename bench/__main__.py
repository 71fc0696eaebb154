"""`make bench`: run every benchmark on SQLite and PostgreSQL and print a table of figures."""

from bench import me

BENCHMARKS = {"GET /api/me (session lookup)": me.measure}


def main() -> None:
    print(
        f"{'benchmark':34} {'db':10} {'app req/s':>10} {'p99 ms':>7} "
        f"{'raw req/s':>10} {'bare req/s':>10} {'app/raw':>8} {'app/bare':>8}"
    )
    for name, measure in BENCHMARKS.items():
        for kind in ("sqlite", "postgresql"):
            figures = measure(kind)
            app, raw, bare = figures["app"], figures["raw"], figures["bare"]
            print(
                f"{name:34} {kind:10} {app.requests_per_second:10.0f} {app.p99_ms:7.1f} "
                f"{raw.requests_per_second:10.0f} {bare.requests_per_second:10.0f} "
                f"{app.requests_per_second / raw.requests_per_second:8.0%} "
                f"{app.requests_per_second / bare.requests_per_second:8.0%}",
                flush=True,
            )


if __name__ == "__main__":
    main()

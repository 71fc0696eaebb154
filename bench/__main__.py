"""`make bench`: every benchmark on SQLite and PostgreSQL, each figure beside its ceilings."""

import sys

from bench import (
    board,
    bot_turn,
    bulk_indexes,
    channels,
    deliveries,
    discussions,
    due_sweep,
    import_rate,
    instructions,
    items,
    list_shapes,
    me,
    me_tasks,
    notifications,
    observability,
    pressure,
    rules,
    sync_ado,
    sync_import,
    sync_jira,
    sync_latency,
    sync_planner,
    sync_push,
    thread_refresh,
    uploads,
    webhook_latency,
)
from bench.harness import print_reports


def main(only: list[str]) -> None:
    if not only or "me" in only:
        print("GET /api/me: authenticating a request, 8 connections")
        for kind in ("sqlite", "postgresql"):
            print(me.report(kind, me.measure(kind)), flush=True)
    if not only or "items" in only:
        print(f"\nItems over {items.BUGS:,} bugs in one channel (list: {items.LIST_QUERY})")
        for kind in ("sqlite", "postgresql"):
            for line in items.report(kind, items.measure(kind)):
                print(line, flush=True)
    if not only or "shapes" in only:
        print(f"\nList shapes over {items.BUGS:,} bugs in one channel, one client")
        print_reports(list_shapes.measure, list_shapes.report)
    if not only or "bulk_indexes" in only:
        print("\nThe tabs' indexes (migration 0027) against the bulk edit, PostgreSQL")
        for line in bulk_indexes.report("postgresql", bulk_indexes.measure()):
            print(line, flush=True)
    if not only or "board" in only:
        print(f"\nThe channel tab's board of {board.BUGS:,} bugs in headless Chromium")
        print_reports(board.measure, board.report)
    if not only or "instructions" in only:
        print(
            f"\nInstructions per request after {instructions.WARM_UP} warm-up requests "
            f"(callgrind; the server process only), the items benchmarks' list and create"
        )
        for kind in ("sqlite", "postgresql"):
            for line in instructions.report(kind, instructions.measure(kind)):
                print(line, flush=True)
    if not only or "me_tasks" in only:
        print(f"\n{me_tasks.title()}")
        for kind in ("sqlite", "postgresql"):
            print(me_tasks.report(kind, me_tasks.measure(kind)), flush=True)
    if not only or "pressure" in only:
        print(
            f"\nOne member floods {pressure.FLOOD_CONNECTIONS} connections with the heaviest"
            f" $filter over {items.BUGS:,} bugs; another client reads meanwhile"
        )
        for kind in ("sqlite", "postgresql"):
            for line in pressure.report(kind, pressure.measure(kind)):
                print(line, flush=True)
    if not only or "channels" in only:
        print(f"\n{channels.title()}")
        for kind in ("sqlite", "postgresql"):
            for line in channels.report(kind, channels.measure(kind)):
                print(line, flush=True)
    if not only or "due_sweep" in only:
        print(
            f"\nDue-date sweep over {due_sweep.ITEMS:,} items, {due_sweep.CROSSING:,} overdue since"
        )
        for kind in ("sqlite", "postgresql"):
            print(due_sweep.report(kind, due_sweep.measure(kind)), flush=True)
    if not only or "bot" in only:
        print(
            f"\nBot turn: bugs/my over {bot_turn.BUGS:,} bugs, reply recorded by a local connector"
        )
        print(
            f"{'':12} {'db':10} {'p50 ms':>7} {'cpu ms':>7} {'turns/s':>8} {'bare p50':>8} "
            f"{'bare req/s':>10}"
        )
        for kind in ("sqlite", "postgresql"):
            print(bot_turn.report(kind, bot_turn.measure(kind)), flush=True)
    if not only or "discussions" in only:
        print(f"\n{discussions.title()}")
        for kind in ("sqlite", "postgresql"):
            print(discussions.report(kind, discussions.measure(kind)), flush=True)
    if not only or "rules" in only:
        print(f"\n{rules.title()}")
        for kind in ("sqlite", "postgresql"):
            print(rules.report(kind, rules.measure(kind)), flush=True)
    if not only or "webhook_latency" in only:
        print(f"\n{webhook_latency.title()}")
        for kind in ("sqlite", "postgresql"):
            print(webhook_latency.report(kind, webhook_latency.measure(kind)), flush=True)
    if not only or "deliveries" in only:
        print(f"\n{deliveries.title()}")
        for kind in ("sqlite", "postgresql"):
            print(deliveries.report(kind, deliveries.measure(kind)), flush=True)
    if not only or "thread" in only:
        print(f"\n{thread_refresh.title()}")
        for kind in ("sqlite", "postgresql"):
            print(thread_refresh.report(kind, thread_refresh.measure(kind)), flush=True)
    if not only or "notifications" in only:
        print(f"\n{notifications.title()}")
        for kind in ("sqlite", "postgresql"):
            print(notifications.report(kind, notifications.measure(kind)), flush=True)
    if not only or "import" in only:
        print(f"\n{import_rate.title()}")
        for kind in ("sqlite", "postgresql"):
            print(import_rate.report(kind, import_rate.measure(kind)), flush=True)
    if not only or "observability" in only:
        print(f"\n{observability.title()}")
        for kind in ("sqlite", "postgresql"):
            for line in observability.report(kind, observability.measure(kind)):
                print(line, flush=True)
    # `sync` for every source, `sync-ado`, `sync-jira` or `sync-planner` for one.
    for part, source in (
        ("sync-ado", sync_ado.SOURCE),
        ("sync-jira", sync_jira.SOURCE),
        ("sync-planner", sync_planner.SOURCE),
    ):
        if only and "sync" not in only and part not in only:
            continue
        for bench in (sync_import, sync_push, sync_latency):
            print(f"\n{bench.title(source)}")
            for kind in ("sqlite", "postgresql"):
                measured = bench.measure(source, kind)
                shown = bench.report(source, kind, measured)
                for line in [shown] if isinstance(shown, str) else shown:
                    print(line, flush=True)
    if not only or "uploads" in only:
        print(f"\n{uploads.title()}")
        for kind in ("sqlite", "postgresql"):
            print(uploads.report(kind, uploads.measure(kind)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])

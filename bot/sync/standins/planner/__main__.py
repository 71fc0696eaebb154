"""`python -m bot.sync.standins.planner [--port 8092] [--seed 20]`: serve a local Planner and its
token endpoint until interrupted, to link a project to by hand (it prints what to enter)."""

import argparse
import asyncio
from collections.abc import Callable, Sequence

from bot.sync.standins.planner.server import PlannerStandin
from bot.sync.standins.wire import serve_until


async def serve(
    *,
    port: int,
    seed: int,
    stop: asyncio.Event,
    ready: Callable[[PlannerStandin], None] = lambda _: None,
) -> None:
    await serve_until(PlannerStandin(), port=port, seed=seed, stop=stop, ready=ready)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bot.sync.standins.planner")
    parser.add_argument("--port", type=int, default=8092)
    parser.add_argument("--seed", type=int, default=20, help="tasks to start with")
    args = parser.parse_args(argv)

    def tell(standin: PlannerStandin) -> None:
        print(
            f"Planner at {standin.graph_url} (ENTRA_AUTHORITY_URL={standin.authority_url}), "
            f"plan {standin.plan_id}, tenantId {standin.tenant_id}, "
            f"clientId {standin.client_id}, clientSecret {standin.client_secret}",
            flush=True,
        )

    try:
        asyncio.run(serve(port=args.port, seed=args.seed, stop=asyncio.Event(), ready=tell))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

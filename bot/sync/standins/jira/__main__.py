"""`python -m bot.sync.standins.jira [--port 8091] [--seed 20]`: serve a local Jira Cloud until
interrupted, to link a project to by hand (it prints the site, the project key, the email and
the API token)."""

import argparse
import asyncio
from collections.abc import Callable, Sequence

from bot.sync.standins.jira.server import JiraStandin
from bot.sync.standins.wire import serve_until


async def serve(
    *,
    port: int,
    seed: int,
    token: str,
    stop: asyncio.Event,
    ready: Callable[[JiraStandin], None] = lambda _: None,
) -> None:
    await serve_until(JiraStandin(token=token), port=port, seed=seed, stop=stop, ready=ready)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bot.sync.standins.jira")
    parser.add_argument("--port", type=int, default=8091)
    parser.add_argument("--seed", type=int, default=20, help="issues to start with")
    parser.add_argument("--token", default="standin-api-token", help="the API token")
    args = parser.parse_args(argv)

    def tell(standin: JiraStandin) -> None:
        print(
            f"Jira at {standin.base_url}, project {standin.project}, "
            f"email {standin.email}, token {args.token}",
            flush=True,
        )

    try:
        asyncio.run(
            serve(
                port=args.port, seed=args.seed, token=args.token, stop=asyncio.Event(), ready=tell
            )
        )
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

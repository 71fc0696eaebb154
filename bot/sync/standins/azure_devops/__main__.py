"""`python -m bot.sync.standins.azure_devops [--port 8090] [--seed 20]`: serve a local Azure
DevOps until interrupted, to link a project to by hand (it prints the address and the token)."""

import argparse
import asyncio
from collections.abc import Callable, Sequence

from bot.sync.standins.azure_devops.server import AzureDevOpsStandin
from bot.sync.standins.wire import serve_until


async def serve(
    *,
    port: int,
    seed: int,
    token: str,
    stop: asyncio.Event,
    ready: Callable[[AzureDevOpsStandin], None] = lambda _: None,
) -> None:
    await serve_until(AzureDevOpsStandin(token=token), port=port, seed=seed, stop=stop, ready=ready)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bot.sync.standins.azure_devops")
    parser.add_argument("--port", type=int, default=8090)
    parser.add_argument("--seed", type=int, default=20, help="work items to start with")
    parser.add_argument("--token", default="standin-pat", help="the personal access token")
    args = parser.parse_args(argv)

    def tell(standin: AzureDevOpsStandin) -> None:
        print(f"Azure DevOps at {standin.org_url}, project {standin.project}, token {args.token}")

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

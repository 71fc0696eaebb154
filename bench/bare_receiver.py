"""A webhook receiver for benchmarks: answers 200 at once, in its own process."""

import sys

from aiohttp import web


async def received(request: web.Request) -> web.Response:
    await request.read()
    return web.Response(text="ok")


async def _ready(_app: web.Application) -> None:
    print("ready", flush=True)


def main(port: int) -> None:
    app = web.Application()
    app.router.add_post("/{tail:.*}", received)
    app.on_startup.append(_ready)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main(int(sys.argv[1]))

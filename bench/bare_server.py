"""The bare ceiling: an aiohttp handler that returns fixed bytes, nothing else."""

import sys
from pathlib import Path

from aiohttp import web


async def healthz(_request: web.Request) -> web.Response:
    return web.Response(body=b'{"status":"ok"}', content_type="application/json")


def main(port: int, body_file: Path) -> None:
    body = body_file.read_bytes()

    async def fixed(_request: web.Request) -> web.Response:
        return web.Response(body=body, content_type="application/json")

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/{tail:.*}", fixed)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main(int(sys.argv[1]), Path(sys.argv[2]))

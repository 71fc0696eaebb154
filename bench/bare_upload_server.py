"""The upload ceiling: a bare aiohttp handler streaming a multipart body's file to disk."""

import sys
from pathlib import Path

from aiohttp import web


async def healthz(_request: web.Request) -> web.Response:
    return web.Response(body=b'{"status":"ok"}', content_type="application/json")


def main(port: int, folder: Path) -> None:
    target = folder / "upload.bin"

    async def upload(request: web.Request) -> web.Response:
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if part.name != "file":
                await part.release()
                continue
            with target.open("wb") as out:  # on the loop, as the simplest handler writes
                while chunk := await part.read_chunk(256 * 1024):  # type: ignore[union-attr]
                    out.write(chunk)
        return web.json_response({"size": target.stat().st_size}, status=201)

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_post("/{tail:.*}", upload)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main(int(sys.argv[1]), Path(sys.argv[2]))

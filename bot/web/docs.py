"""The API docs page at /docs: Swagger UI from the swagger-ui-py package, so it works offline."""

from pathlib import Path

import swagger_ui
from aiohttp import web

STATIC = Path(swagger_ui.__file__).parent / "static"

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Teams tracker API</title>
  <link rel="stylesheet" href="/docs/static/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/static/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: "/openapi.json", dom_id: "#swagger-ui", withCredentials: true
    });
  </script>
</body>
</html>
"""


async def docs_page(_request: web.Request) -> web.Response:
    return web.Response(text=PAGE, content_type="text/html")


def install_docs(app: web.Application) -> None:
    app.router.add_get("/docs", docs_page)
    app.router.add_static("/docs/static", STATIC)

"""The Teams tabs: the channel's board and list, the item panel, and my items. A front end in
`src/` (ES modules bundled by esbuild into `dist/` by `make run` and `make test`) on the JSON API,
served from the app's own origin by `routes.py`."""

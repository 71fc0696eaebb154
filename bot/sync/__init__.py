"""Two-way sync with external trackers: the `Source` port (`source.py`), the connectors that
implement it (one package per source), and the engine that drives any of them."""

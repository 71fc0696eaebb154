"""OData entity keys in paths: `bugs(<id>)` and `bugs('<id>')` both name the same entity."""


def entity_key(raw: str) -> str:
    """The id inside an OData key segment, quotes removed."""
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1]
    return raw


def entity_link(base_url: str, entity_set: str, entity_id: str) -> str:
    return f"{base_url}/odata/{entity_set}('{entity_id}')"


def entity_context(base_url: str, entity_set: str) -> str:
    return f"{base_url}/odata/$metadata#{entity_set}/$entity"

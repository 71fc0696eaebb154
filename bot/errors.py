"""Typed domain errors. Services raise them; the web middleware and the bot render them."""


class ClientGone(Exception):
    """The client closed the connection before its body arrived: nobody is left to answer."""


class DomainError(Exception):
    """Base: an expected refusal with a message a user can act on."""

    status = 400

    def __init__(self, message: str, *, said: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        # What the bot says in chat and on cards, where the API's ids and property names mean
        # nothing to people; the API answers `message`.
        self.said = said or message

    def body(self) -> dict[str, str]:
        return {"error": self.message}


class Invalid(DomainError):
    """A bad input; the message names the field and what is wrong with it. `label` and
    `why_said` are the words of the bot's form, where they differ from the API's."""

    def __init__(
        self, field: str, why: str, *, label: str | None = None, why_said: str | None = None
    ) -> None:
        super().__init__(f"{field}: {why}", said=f"{label or field}: {why_said or why}")
        self.field = field
        self.why_said = why_said or why  # beside the field's input on a card


class BadRequest(DomainError):
    status = 400


class CodedBadRequest(DomainError):
    """A 400 whose body is `{code, message}` with the same text in both (docs/api.md, Errors)."""

    def body(self) -> dict[str, str]:
        return {"code": self.message, "message": self.message}


class Unauthorized(DomainError):
    status = 401


class Forbidden(DomainError):
    status = 403


class NotFound(DomainError):
    status = 404


class ItemNotFound(NotFound):
    """No such bug or task (in the channel): deleted, or never there."""

    def __init__(self, type_label: str, item_id: str) -> None:
        super().__init__(f"{type_label} '{item_id}' not found.")
        self.item_id = item_id


class RequestTimeout(DomainError):
    status = 408


class Conflict(DomainError):
    status = 409


class TooManyRequests(DomainError):
    """A caller over its share; `retry_after` seconds is when to try again."""

    status = 429

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class QueryTooLong(DomainError):
    """A statement ran past the database time bound and was stopped; nothing was changed."""

    status = 503

    def __init__(self) -> None:
        super().__init__(QUERY_TOO_LONG)


class PayloadTooLarge(DomainError):
    status = 413


class BadGateway(DomainError):
    """Microsoft Teams (the Bot Connector) refused, failed or did not answer in time."""

    status = 502


class UnsupportedMediaType(DomainError):
    status = 415


QUERY_TOO_LONG = "The query took too long; narrow the filter."
MUST_RUN_IN_TEAMS = "Must run inside Microsoft Teams."
PRIVATE_CHANNELS_UNSUPPORTED = "Private and shared channels are not supported yet."


def missing_context() -> CodedBadRequest:
    """The answer when the Teams context headers are absent (docs/api.md, Where a request acts)."""
    return CodedBadRequest(MUST_RUN_IN_TEAMS)

"""Typed domain errors. Services raise them; the web middleware and the bot render them."""


class DomainError(Exception):
    """Base: an expected refusal with a message a user can act on."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def body(self) -> dict[str, str]:
        return {"error": self.message}


class Invalid(DomainError):
    """A bad input; the message names the field and what is wrong with it."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(f"{field}: {why}")
        self.field = field


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

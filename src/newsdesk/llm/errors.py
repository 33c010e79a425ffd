"""Every error of the LLM layer, apart from the client so the backends can raise them
without importing the client that imports them."""

from __future__ import annotations

from newsdesk.core.errors import PARTIAL, USAGE, NewsdeskError


class LLMError(NewsdeskError):
    """The model could not give an answer; the message is one line naming the endpoint or setting and the fix."""

    exit_code = PARTIAL  # one part went unwritten; the others are stored


class LLMUnavailable(LLMError):
    """The endpoint cannot answer at all (unreachable, refused key, retries spent): later calls would fail too."""

    exit_code = USAGE  # nothing can be written until someone fixes the endpoint or its settings


class BudgetExhausted(LLMError):
    """This run's token / money budget is spent: stop cleanly, the rest waits for the next run."""


class TransientError(LLMError):
    """A backend's try that is worth retrying (timeout, 429, 5xx, dropped connection); `retry_after`
    in seconds when the server said. The client retries it and never lets it out."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class FatalError(LLMError):
    """A backend's try that retrying will not help. `unavailable`: no later call can succeed either
    (unreachable, bad key, unknown model). The client turns it into LLMUnavailable or LLMError."""

    def __init__(self, message: str, unavailable: bool = True):
        super().__init__(message)
        self.unavailable = unavailable

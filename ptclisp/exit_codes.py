"""Exit classes of the commands, and the exceptions that carry one (docs: README "Exit codes").

The codes are one definition for every command; the exceptions are raised by the libraries a
command calls (reading a project, a scripted model's answers, a user-named file) and caught at
the command's edge, in ptclisp/commands/, which turns them into one line on stderr (or an
--envelope document) and the exit status. A leaf: imports nothing.
"""
OK = 0
USAGE = 2
INVALID_DOCUMENT = 3
PROVIDER_NOT_READY = 4
RUN_FAILED = 5
LIMIT_HIT = 6
OUTPUT_FAILED = 7


class UsageError(Exception):
    """Bad arguments or unusable input files: one line on stderr, exit `code` (2)."""

    code = USAGE


class RefusedDocument(UsageError):
    """A named file that is not a document at all: a FIFO, a device, a directory, or more than the size
    bound (ptclisp/interchange/documents.py). Exit 3, an invalid document, as for a broken one."""

    code = INVALID_DOCUMENT


class CommandFailure(Exception):
    """A failure outside the run itself, with its exit class, a reason and a one-line message."""

    code = RUN_FAILED

    def __init__(self, message: str, reason: str | None = None, details: dict | None = None):
        super().__init__(message)
        self.message = message
        self.reason = reason or type(self).__name__
        self.details = dict(details or {})


class DocumentError(CommandFailure):
    """A document (project file, schema, prelude, workflow, replay or script file) is invalid: exit 3."""

    code = INVALID_DOCUMENT


class NotReady(CommandFailure):
    """A provider cannot be used (no key, refused, unknown model): exit 4."""

    code = PROVIDER_NOT_READY


class OutputError(CommandFailure):
    """The value could not be written where --output said: exit 7."""

    code = OUTPUT_FAILED

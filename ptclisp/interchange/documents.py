"""Reading the documents a user names: regular files only, and only up to a size bound.

Every file a command reads because a user named it (a program, a prelude, `ptclisp.toml`
and the files it names, `--env-file`, `--input`, `-l FILE`) goes through `read_document`
or `read_document_text`, so a FIFO, a device (`/dev/zero`) or a file that grows without end
is refused at once with a reason rather than read until the process hangs or runs out of
memory. The refusals are `OSError`s with `strerror` set, so a caller that reports
`exc.strerror` for a missing file reports these the same way. `read_text` is what the commands
and the libraries they call use: a named file (or `-`, standard input) as UTF-8 text, every failure
an exception with its exit class (ptclisp/exit_codes.py). Imports ptclisp.exit_codes and the standard library.
"""
from __future__ import annotations

import errno
import os
import stat
import sys

from ..exit_codes import RefusedDocument, UsageError

#: The largest document read (bytes); programs are bounded again by Limits.max_program_bytes.
MAX_DOCUMENT_BYTES = 32 * 1024 * 1024

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


class DocumentError(OSError):
    """A named file that is not a regular file, or is larger than the bound (`strerror` says which)."""

    def __init__(self, path, reason: str):
        super().__init__(errno.EINVAL, reason, str(path))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_document(path, max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of the regular file `path`; DocumentError for anything else or for more than `max_bytes`
    (other OSErrors, e.g. a missing file, as `open` raises them). Never blocks on a FIFO."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise DocumentError(path, f"not a regular file ({_kind(mode)}): only regular files are read")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                raise DocumentError(path, f"larger than {max_bytes} bytes (the limit of a document)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_document_text(path, max_bytes: int = MAX_DOCUMENT_BYTES) -> str:
    """`read_document` decoded as UTF-8 (a UnicodeDecodeError when it is not)."""
    return read_document(path, max_bytes).decode("utf-8")


def read_text(path: str, what: str = "", max_bytes: int | None = None) -> str:
    """The UTF-8 text of `path` (`-`: standard input); `what` prefixes the file in the error, e.g. "--data ".

    A file that is not a regular one, or holds more than `max_bytes` (default: MAX_DOCUMENT_BYTES), is a
    RefusedDocument (exit 3); one that cannot be read, a UsageError (2)."""
    cap = MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes
    if path == "-":
        text = sys.stdin.read(cap + 1)
        if len(text) > cap:
            raise RefusedDocument(f"cannot read {what}standard input: larger than {cap} characters")
        return text
    try:
        return read_document_text(path, cap)   # a regular file within the size bound
    except DocumentError as exc:
        raise RefusedDocument(f"cannot read {what}{path}: {exc.strerror}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what}{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read {what}{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None

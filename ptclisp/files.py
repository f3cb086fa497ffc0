"""Reading a file the user named: regular files only, within a size bound.

A path given on a command line or in a document (a `--data` file, a
prelude, a source file, an env file) may name anything: a FIFO that never
sends end-of-file, `/dev/zero`, a directory, a file of many gigabytes. Read
naively, each of these hangs the command or exhausts memory. `read_bytes`
opens the path without blocking, refuses anything but a regular file, and
reads at most `max_bytes` (one byte more tells a file that is too large,
also one that grows while it is read); `read_text` decodes it as UTF-8.
Both raise `FileRefused` with a one-line reason (the caller adds which flag
or key named the file). Imports only the standard library.
"""
from __future__ import annotations

import os
import stat

#: The default bound of `read_bytes`: far above any program, prelude or data file a person writes,
#: far below what would exhaust a machine's memory once parsed.
MAX_FILE_BYTES = 100_000_000


class FileRefused(Exception):
    """A file could not be read, or is not one that may be: `reason` is one line without the path."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def read_bytes(path: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The contents of the regular file `path`, at most `max_bytes` of them; raises FileRefused."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FileRefused(path, exc.strerror or str(exc)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(path, f"not a regular file ({_kind(st.st_mode)})")
        if st.st_size > max_bytes:
            raise FileRefused(path, _too_large(max_bytes))
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:  # it grew while it was read
                raise FileRefused(path, _too_large(max_bytes))
        return b"".join(chunks)
    except OSError as exc:
        raise FileRefused(path, exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def read_text(path: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """`read_bytes(path, max_bytes)` decoded as UTF-8; raises FileRefused (also for text that is not UTF-8)."""
    data = read_bytes(path, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileRefused(path, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _too_large(max_bytes: int) -> str:
    return f"larger than {max_bytes:,} bytes (the limit for a file read whole)"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"

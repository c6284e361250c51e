"""Writing the open-data files: once, whole, or not at all. A file is written to a temporary name in
its folder, flushed and fsynced, then linked to its name (which fails if the name exists: a published
file is never replaced) and the folder fsynced; only the manifest is replaced, by rename."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

CHUNK = 1024 * 1024


class AlreadyWritten(Exception):
    """The file exists: it was published before and stays as it is."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _fsync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def temporary(path: Path) -> Iterator[tuple[Path, BinaryIO]]:
    """A temporary file beside `path`, open for writing; removed if the block fails or leaves it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temp.open("wb") as handle:
            yield temp, handle
    finally:
        temp.unlink(missing_ok=True)


def write_once(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write the file `path` by `write(handle)`, atomically and once: AlreadyWritten if it exists (then
    nothing is written)."""
    if path.exists():
        raise AlreadyWritten(str(path))
    with temporary(path) as (temp, handle):
        write(handle)
        handle.flush()
        os.fsync(handle.fileno())
        publish(temp, path)


def publish(temp: Path, path: Path) -> None:
    """Give the finished temporary file its name, unless the name is taken (AlreadyWritten)."""
    try:
        os.link(temp, path)  # unlike a rename, a link never replaces a file of that name
    except FileExistsError:
        raise AlreadyWritten(str(path)) from None
    _fsync_folder(path.parent)


def replace(path: Path, data: bytes) -> None:
    """Replace the file `path` (the manifest) with `data`, atomically: readers see the old or the new."""
    with temporary(path) as (temp, handle):
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
        os.replace(temp, path)
    _fsync_folder(path.parent)


@contextlib.contextmanager
def exclusive(root: Path) -> Iterator[bool]:
    """Hold the folder's lock for one dump at a time: yields False (holding nothing) if another has it."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("a") as handle:  # opened, never written: the lock file stays as it is
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

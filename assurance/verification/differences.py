"""Differences found while verifying a system: counted, and the first lines of each kind kept."""
from __future__ import annotations

from collections.abc import Callable, Iterator


class Differences:
    """What a verification found: differences from a fresh recalculation (`replayed`), stored
    figures that disagree with their own rows or formula (`inconsistent`), and published lists that
    are no longer as published or never were what the games reported before them give
    (`published`), with the first lines of each."""

    def __init__(self, limit: int):
        self.limit = limit
        self.replayed = 0
        self.inconsistent = 0
        self.published = 0
        self.first_replayed: list[str] = []
        self.first_inconsistent: list[str] = []
        self.first_published: list[str] = []
        self.notes: list[str] = []  # what was left unchecked, and why

    @property
    def count(self) -> int:
        return self.replayed + self.inconsistent + self.published

    @property
    def first(self) -> list[str]:
        return self.first_replayed + self.first_inconsistent + self.first_published

    def _add(self, line: str) -> None:
        """A difference from the fresh recalculation."""
        self.replayed += 1
        if len(self.first_replayed) < self.limit:
            self.first_replayed.append(line)

    def differences(self, count: int, lines: Callable[[int], Iterator[str]]) -> None:
        """`count` differences from the fresh recalculation; `lines(n)` gives the first n described."""
        self.replayed += count
        self._describe(self.first_replayed, count, lines)

    def inconsistency(self, count: int, lines: Callable[[int], Iterator[str]]) -> None:
        """`count` stored figures disagreeing with their rows; `lines(n)` gives the first n described."""
        self.inconsistent += count
        self._describe(self.first_inconsistent, count, lines)

    def publication(self, count: int, lines: Callable[[int], Iterator[str]]) -> None:
        """`count` published figures not as published or not as the games reported before it give."""
        self.published += count
        self._describe(self.first_published, count, lines)

    def _describe(self, first: list[str], count: int, lines: Callable[[int], Iterator[str]]) -> None:
        room = self.limit - len(first)
        if count and room > 0:
            first.extend(lines(min(room, count)))

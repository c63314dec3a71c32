"""What every result shares: its JSON document, read as `result["key"]` by the API's users."""

from __future__ import annotations

from functools import cached_property
from typing import Any


class Result:
    """A result whose `to_dict()` is its JSON document, also readable as `result[key]`.

    `result[key]` reads a document built on first use and kept, and a key
    the result holds as an attribute (`ok`) is read from the attribute, so
    asking whether a 200,000-step replay passed builds nothing.
    """

    _attributes: frozenset[str] = frozenset({"ok"})  # keys read straight from the attribute

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    @cached_property
    def _document(self) -> dict[str, Any]:
        return self.to_dict()

    def __getitem__(self, key: str) -> Any:
        if key in self._attributes:
            return getattr(self, key)
        return self._document[key]

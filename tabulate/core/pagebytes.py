"""A scanned page's bytes with their SHA-256, computed once.

The central count's worker hashes every page it loads (the sheet's identity
in the store); the reader records the same digest in its evidence. Handing
the reader `PageBytes` lets it reuse the worker's digest instead of hashing
the page a second time. Plain ``bytes`` still work: the reader hashes them.
"""

from __future__ import annotations

import hashlib


class PageBytes(bytes):
    """``bytes`` that carry their own SHA-256 (hex), computed when made."""

    sha256: str

    def __new__(cls, data: bytes, sha256: str | None = None) -> PageBytes:
        obj = super().__new__(cls, data)
        obj.sha256 = sha256 if sha256 is not None else hashlib.sha256(data).hexdigest()
        return obj

    def __reduce__(self) -> tuple[type[PageBytes], tuple[bytes, str]]:
        return PageBytes, (bytes(self), self.sha256)


def page_sha256(data: bytes) -> str:
    """The SHA-256 (hex) of a page's bytes, reusing the one `PageBytes` carries."""
    digest = getattr(data, "sha256", None)
    return digest if isinstance(digest, str) else hashlib.sha256(data).hexdigest()

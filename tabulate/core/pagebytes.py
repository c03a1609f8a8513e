"""A scanned page's bytes with their SHA-256, computed once.

The central count's worker hashes every page it loads (the sheet's identity
in the store); the reader records the same digest in its evidence. Handing
the reader `PageBytes` lets it reuse the worker's digest instead of hashing
the page a second time. Plain ``bytes`` still work: the reader hashes them.

``flags`` are what the loader knows of the page that its bytes no longer say
(a page of a batch PDF rendered through PDFium and handed on as a TIFF is
still ``pdf_page_rendered``); the reader adds them to the page's reading.
"""

from __future__ import annotations

import hashlib


class PageBytes(bytes):
    """``bytes`` that carry their own SHA-256 (hex), computed when made."""

    sha256: str
    flags: tuple[str, ...]

    def __new__(cls, data: bytes, sha256: str | None = None, flags: tuple[str, ...] = ()) -> PageBytes:
        obj = super().__new__(cls, data)
        obj.sha256 = sha256 if sha256 is not None else hashlib.sha256(data).hexdigest()
        obj.flags = tuple(flags)
        return obj

    def __reduce__(self) -> tuple[type[PageBytes], tuple[bytes, str, tuple[str, ...]]]:
        return PageBytes, (bytes(self), self.sha256, self.flags)


def page_sha256(data: bytes) -> str:
    """The SHA-256 (hex) of a page's bytes, reusing the one `PageBytes` carries."""
    digest = getattr(data, "sha256", None)
    return digest if isinstance(digest, str) else hashlib.sha256(data).hexdigest()

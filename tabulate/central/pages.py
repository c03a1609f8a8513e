"""Loading a page's bytes and fingerprinting them (SHA-256), in a worker.

A page is hashed from exactly the bytes handed to the reader, so the identity
the store records is the identity of what was read, even if a scanner is
still writing the file.
"""

from __future__ import annotations

import hashlib
import io
import mmap
import os

from ..core.errors import TabulateError
from ..core.pagebytes import PageBytes
from .sources import PageSource, is_url, open_source

#: A scanned page file larger than this is refused unread (a 600 DPI colour
#: legal page as uncompressed TIFF is ~150 MB).
MAX_FILE_BYTES = 256 * 1024 * 1024

FILE_UNREADABLE = "file_unreadable"
FILE_TOO_LARGE = "file_too_large"
PAGE_UNREADABLE = "page_unreadable"


class PageLoadError(TabulateError):
    """A page whose bytes could not be had; ``code`` is the sheet's reason code."""

    code = "page_load"

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code = code
        self.detail = detail


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def unreadable_digest(page: PageSource) -> str:
    """A stand-in fingerprint for a page whose content could not be read.

    Derived from its name, so re-running the batch finds the same (rejected)
    sheet; once the file can be read, its real content makes a new sheet.
    """
    return sha256_hex(b"unreadable:" + page.label.encode("utf-8", "surrogateescape"))


def _size(path: str) -> int:
    if not is_url(path):
        return os.stat(path.removeprefix("file://")).st_size
    from .sources import fsspec_module

    fs, where = fsspec_module().core.url_to_fs(path)
    return int(fs.size(where))


def _read_file(path: str) -> bytes:
    try:
        size = _size(path)
        if size > MAX_FILE_BYTES:
            raise PageLoadError(
                FILE_TOO_LARGE,
                f"{path} is {size / 2**20:.0f} MB, more than a scanned page "
                f"can be ({MAX_FILE_BYTES // 2**20} MB); not read",
            )
        with open_source(path) as f:
            return f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise PageLoadError(FILE_UNREADABLE, f"cannot read {path}: {e.strerror or e}") from None


def _tiff_page(path: str, page: int, paper_in: tuple[float, float]) -> tuple[bytes, tuple[str, ...]]:
    """Page ``page`` (from 1) of a multi-page TIFF, as a single-page uncompressed TIFF.

    The file is memory-mapped, not read: only the page directories up to this
    page and this page's strips are touched, so the memory a page takes does
    not grow with the file (a 1,000-page TIFF reads every page in the memory
    of one). The page is decoded with the reader's own decoder, after the
    reader's size check on its header (a decompression bomb is refused
    unread), and written back losslessly, so the reader sees an ordinary
    one-page file. A page of a batch PDF that PDFium had to render (not one
    full-page scan) comes back with the flag ``pdf_page_rendered``, which the
    TIFF it becomes could not say.
    """
    import tifffile

    from ..detect.decode import check_size, decode_page, page_header, resampled_flags
    from ..detect.errors import ReadError
    from ..detect.read import PDF_PAGE_RENDERED

    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            header = page_header(data, page - 1)
            if header is None:
                raise PageLoadError(PAGE_UNREADABLE, f"{path} has no page {page}")
            check_size(header, paper_in)
            img = decode_page(data, header)
    except ReadError as e:
        raise PageLoadError(e.code, f"{path} page {page}: {e.reason}") from None
    except (OSError, ValueError) as e:  # ValueError: mmap of an empty file
        raise PageLoadError(FILE_UNREADABLE, f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    buf = io.BytesIO()
    tifffile.imwrite(buf, img, photometric="minisblack")
    # The TIFF written has square pixels and no resolution: the flag says what the header stated.
    return buf.getvalue(), ((PDF_PAGE_RENDERED,) if header.via == "render" else ()) + resampled_flags(header)


def load_page(page: PageSource, paper_in: tuple[float, float]) -> tuple[bytes, str]:
    """The bytes to hand the reader for one page, and their SHA-256 (hex).

    ``paper_in`` is the election's paper size (width, height in inches),
    which bounds the pixels a page of a multi-page TIFF may declare.

    Raises
    ------
    PageLoadError
        The file cannot be read, is too large, or the TIFF page cannot be extracted.
    """
    data, flags = (_read_file(page.path), ()) if page.page is None else _tiff_page(page.path, page.page, paper_in)
    content = PageBytes(data, flags=flags)  # hashed here once; the reader reuses the digest
    return content, content.sha256

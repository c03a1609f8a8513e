"""Which files are which sheets: listing the scanner's output and pairing front and back pages.

The rules (docs/scanning.md):

* Each PATH is a file or a folder. A folder contributes its image files
  (``.jpg .jpeg .png .tif .tiff .pdf``, any case), sorted by name with numbers
  compared as numbers (``page2`` before ``page10``); other files are not pages
  and are listed as ignored, hidden files (``.name``) skipped. Files given
  by name are always pages, in the order given.
* Pages are paired within a *group*, never across: each folder is a group,
  each run of files named on the command line is a group, and each
  multi-page TIFF or PDF is a group of its own pages (a two-page TIFF or PDF is one sheet).
* In a group, files whose names end in ``front`` / ``back`` (after ``-``,
  ``_``, ``.`` or a space: ``sheet-00001-front.jpg``) pair by the rest of their
  name. Every other page pairs with the next one, in order.
* A page left without its other side is still a sheet -- set aside with the
  reason ``missing_back_page`` (an odd count, or a front without its back) or
  ``missing_front_page`` (a back without its front) -- so it is accounted for.
* With ``simplex`` every page is a sheet of its own.

Sheets are numbered from 1 in the order above; that number is the sheet's
position in the batch. Paths are made absolute, as the store records them.
"""

from __future__ import annotations

import os
import re
import struct
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ..core.errors import TabulateError

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".tif", ".tiff", ".pdf", ".jp2", ".j2k"})
_TIFF_SUFFIXES = frozenset({".tif", ".tiff"})
_PDF_SUFFIX = ".pdf"
_SIDE = re.compile(r"^(?P<key>.*?)[-_. ](?P<side>front|back)$", re.IGNORECASE)
_DIGITS = re.compile(r"(\d+)")
#: Pages of one TIFF beyond which the page directory is taken to be damaged.
MAX_TIFF_PAGES = 10000

MISSING_BACK = "missing_back_page"
MISSING_FRONT = "missing_front_page"


class SourceError(TabulateError, ValueError):
    """A PATH that names nothing usable (missing, or a folder without images)."""

    code = "scan_source"


@dataclass(frozen=True)
class PageSource:
    """One scanned page: a file, or page ``page`` (from 1) of a multi-page TIFF."""

    path: str
    page: int | None = None

    @property
    def label(self) -> str:
        return self.path if self.page is None else f"{self.path}#{self.page}"


@dataclass(frozen=True)
class SheetSource:
    """The pages of one sheet as fed, and why it is incomplete if it is."""

    position: int
    pages: tuple[PageSource, ...]
    missing: str | None = None


def natural_key(name: str) -> str:
    """Sort key comparing digit runs as numbers (``p2 < p10``), case-insensitively; the name breaks ties.

    One string per name (each digit run prefixed by its length), not a tuple
    of parts: sorting a folder of 100,000 pages then needs a third of the memory.
    """
    return _DIGITS.sub(_number, name.lower()) + "\0" + name


def _number(m: re.Match) -> str:
    digits = m[0].lstrip("0") or "0"  # 007 sorts as 7
    return f"{len(digits):04d}{digits}"


def is_url(path: str) -> bool:
    """Whether ``path`` is a URL read through fsspec (``s3://bucket/scans``, ``memory://x``) not a local path."""
    return "://" in path and not path.startswith("file://")


def fsspec_module():
    """fsspec, for images at URLs; a one-line error when the 'cluster' extra is not installed."""
    try:
        import fsspec
    except ImportError:
        raise SourceError("images at URLs need fsspec: pip install 'ballot-tabulate[cluster]'") from None
    return fsspec


def open_source(path: str):
    """Open a page file for reading in binary: a local file, or a URL through fsspec (object storage)."""
    if not is_url(path):
        return open(path.removeprefix("file://"), "rb")
    return fsspec_module().open(path, "rb").open()


def _list_url(url: str, ignored: list[str]) -> tuple[str, list[str]] | None:
    """A folder URL's image files (as `_list_folder` lists a local one); None if ``url`` is a single file."""
    fsspec = fsspec_module()

    try:
        fs, root = fsspec.core.url_to_fs(url)
        if not fs.isdir(root):
            if fs.isfile(root):
                return None
            raise SourceError(f"no such file or folder: {url}")
        entries = fs.ls(root, detail=True)
    except (OSError, ValueError, ImportError) as e:
        raise SourceError(f"cannot list {url}: {e}") from None
    folder = url.rstrip("/")
    files = []
    for entry in entries:
        name = entry["name"].rstrip("/").rsplit("/", 1)[-1]
        if name.startswith("."):
            continue
        if entry.get("type") == "file" and os.path.splitext(name)[1].lower() in IMAGE_SUFFIXES:
            files.append(name)
        else:
            ignored.append(f"{folder}/{name}")
    files.sort(key=natural_key)
    return folder, files


def tiff_page_count(path: str) -> int:
    """How many pages a classic TIFF file holds, from its page directory alone.

    Returns 1 for anything that is not a readable classic TIFF: the reader
    will then reject that page with its own reason.
    """
    try:
        with open_source(path) as f:
            head = f.read(8)
            if head[:4] not in (b"II*\x00", b"MM\x00*"):
                return 1
            bo = "<" if head[:2] == b"II" else ">"
            (offset,) = struct.unpack(bo + "I", head[4:8])
            count, seen = 0, set()
            while offset and count < MAX_TIFF_PAGES and offset not in seen:
                seen.add(offset)
                f.seek(offset)
                (n,) = struct.unpack(bo + "H", f.read(2))
                f.seek(offset + 2 + 12 * n)
                (offset,) = struct.unpack(bo + "I", f.read(4))
                count += 1
            return max(count, 1)
    except (OSError, struct.error):
        return 1


def pdf_page_count(path: str) -> int:
    """How many pages (sides) a PDF of scans holds; 1 when it cannot be opened (the reader says why)."""
    from ..detect.pdf_pages import file_page_count

    try:
        with open_source(path) as f:
            return file_page_count(f)
    except OSError:
        return 1


def _page_count(full: str) -> int:
    """Pages in one file: a TIFF's or PDF's own count, 1 for any other image."""
    suffix = os.path.splitext(full)[1].lower()
    if suffix in _TIFF_SUFFIXES:
        return tiff_page_count(full)
    return pdf_page_count(full) if suffix == _PDF_SUFFIX else 1


def _list_folder(folder: Path, ignored: list[str]) -> list[str]:
    files = []
    with os.scandir(folder) as it:
        for entry in it:
            if entry.name.startswith("."):
                continue
            if entry.is_file() and os.path.splitext(entry.name)[1].lower() in IMAGE_SUFFIXES:
                files.append(entry.name)
            else:
                ignored.append(os.path.join(str(folder), entry.name))
    files.sort(key=natural_key)
    return files


_NONE, _NO_BACK, _NO_FRONT = 0, 1, 2
_MISSING = {_NONE: None, _NO_BACK: MISSING_BACK, _NO_FRONT: MISSING_FRONT}


class _Group:
    """Files paired together, with their pairing held compactly: about 9 bytes a sheet.

    ``names`` are file names in ``folder`` (full paths when ``folder`` is
    empty). Sheet k is pages ``first[k]`` and ``second[k]`` (indices into
    ``names``, -1 for none) and ``missing[k]`` says which side is absent.
    """

    def __init__(self, folder: str, names: list[str], *, simplex: bool):
        self.folder = folder
        self.names = names
        self.first, self.second, self.missing = array("i"), array("i"), bytearray()
        if simplex:
            self.first.extend(range(len(names)))
            self.second.extend([-1] * len(names))
            self.missing.extend(bytes(len(names)))
        else:
            self._pair()

    def _new(self, a: int, b: int, missing: int) -> int:
        self.first.append(a)
        self.second.append(b)
        self.missing.append(missing)
        return len(self.first) - 1

    def _pair(self) -> None:
        # Keys whose other side has not been seen yet: with the usual names
        # (sheet-00001-back, sheet-00001-front) the two sort next to each other,
        # so this stays small however long the batch.
        waiting: dict[str, tuple[int, str]] = {}
        plain = -1  # the sheet of a lone plain page waiting for the next one
        for i, name in enumerate(self.names):
            m = _SIDE.match(os.path.splitext(os.path.basename(name))[0])
            if m is None:
                if plain < 0:
                    plain = self._new(i, -1, _NO_BACK)
                else:
                    self.second[plain], self.missing[plain], plain = i, _NONE, -1
                continue
            key, side = m["key"].lower(), m["side"].lower()
            other = waiting.get(key)
            if other is not None and other[1] != side:
                del waiting[key]
                k = other[0]
                if side == "front":  # the back came first: the front leads the sheet
                    self.first[k], self.second[k] = i, self.first[k]
                else:
                    self.second[k] = i
                self.missing[k] = _NONE
            else:  # the first of its key (or a second file for the same side: a sheet of its own)
                k = self._new(i, -1, _NO_BACK if side == "front" else _NO_FRONT)
                if other is None:
                    waiting[key] = (k, side)

    def path(self, i: int) -> str:
        return os.path.join(self.folder, self.names[i]) if self.folder else self.names[i]

    def __len__(self) -> int:
        return len(self.first)

    def __iter__(self) -> Iterator[tuple[tuple[PageSource, ...], str | None]]:
        for a, b, missing in zip(self.first, self.second, self.missing):
            pages = (PageSource(self.path(a)),) if b < 0 else (PageSource(self.path(a)), PageSource(self.path(b)))
            yield pages, _MISSING[missing]


class _TiffGroup:
    """The pages of one multi-page TIFF or PDF, paired in order (a two-page TIFF is one sheet, read whole)."""

    def __init__(self, path: str, pages: int, *, simplex: bool):
        self.path, self.pages, self.simplex = path, pages, simplex

    def __len__(self) -> int:
        return self.pages if self.simplex else 1 if self.pages == 2 else (self.pages + 1) // 2

    def __iter__(self) -> Iterator[tuple[tuple[PageSource, ...], str | None]]:
        if self.simplex:
            for k in range(1, self.pages + 1):
                yield (PageSource(self.path, k),), None
        elif self.pages == 2:
            yield (PageSource(self.path),), None  # the reader takes both pages from the file itself
        else:
            for k in range(1, self.pages + 1, 2):
                if k < self.pages:
                    yield (PageSource(self.path, k), PageSource(self.path, k + 1)), None
                else:
                    yield (PageSource(self.path, k),), MISSING_BACK


def page_groups(folder: str, names: list[str], *, simplex: bool) -> list[_Group | _TiffGroup]:
    """``names`` (in ``folder``, or full paths when it is empty) as pairing groups: runs of files, and each
    multi-page TIFF on its own. Iterating a group gives ``(pages, missing)`` per sheet."""
    groups: list[_Group | _TiffGroup] = []
    run: list[str] = []
    for name in names:
        full = os.path.join(folder, name) if folder else name
        n = _page_count(full)
        if n > 1:
            if run:
                groups.append(_Group(folder, run, simplex=simplex))
                run = []
            groups.append(_TiffGroup(full, n, simplex=simplex))
        else:
            run.append(name)
    if run:
        groups.append(_Group(folder, run, simplex=simplex))
    return groups


class ScanPlan:
    """The sheets a list of PATHS holds, in feed order; iterate it to get `SheetSource`s.

    Building the plan lists folders and reads TIFF page directories (no
    pixels); ``len(plan)`` is the number of sheets and ``ignored`` the files
    that are not pages. A batch's memory is its sorted list of file names and
    about 9 bytes a sheet; each `SheetSource` is built when it is reached.
    """

    def __init__(self, paths: list[str | Path], *, simplex: bool = False):
        self.simplex = simplex
        self.ignored: list[str] = []
        self._groups: list[_Group | _TiffGroup] = []
        loose: list[str] = []
        for p in paths:
            if is_url(str(p)):
                listed = _list_url(str(p), self.ignored)
                if listed is None:
                    loose.append(str(p))
                else:
                    self._add_files("", loose)
                    loose = []
                    self._add_files(*listed)
                continue
            # Absolute, so that the store's record of each image still finds it
            # from another folder (the review app, an auditor).
            path = Path(os.path.abspath(p))
            if path.is_dir():
                self._add_files("", loose)
                loose = []
                self._add_files(str(path), _list_folder(path, self.ignored))
            elif path.is_file():
                loose.append(str(path))
            elif path.exists():
                raise SourceError(f"{path} is neither a file nor a folder")
            else:
                raise SourceError(f"no such file or folder: {path}")
        self._add_files("", loose)
        self._len = sum(len(g) for g in self._groups)

    def _add_files(self, folder: str, names: list[str]) -> None:
        self._groups += page_groups(folder, names, simplex=self.simplex)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[SheetSource]:
        position = 0
        for g in self._groups:
            for pages, missing in g:
                position += 1
                yield SheetSource(position, pages, missing)

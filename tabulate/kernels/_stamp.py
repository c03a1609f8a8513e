"""Keep numba's on-disk cache of a kernel honest when the helpers it calls live in other files.

numba keys the cache of a ``cache=True`` function on its own source file's
modification time and size, and compiles the helpers it calls into that
entry. Its documentation warns: "Cache invalidation fails to recognize
changes in functions defined in a different file". The target kernel
(`tabulate.kernels._targets`) calls helpers in ``_areas.py`` and
``_interior.py``; after an edit or a merge that changed only a helper, the
old machine code would be loaded and a page read by code that no longer
exists. `refresh` gives the kernel's file a new modification time whenever a
helper's file is newer, so numba compiles again.

numba 0.59 and later key the cache on a SHA-256 of the kernel's own file's
*content*, not its modification time, so touching the file no longer makes it
compile again (found in the eighth session: a helper edited alone left the
old machine code in use, docs/perf.md "This round (branch g4direct)"). `bind`
keys the kernel's cache on the content of its file and of every helper file
instead; `refresh` is kept for a numba that still keys on the time.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any


def refresh(main_file: str, *helper_files: str) -> bool:
    """Touch ``main_file`` if any of ``helper_files`` was modified after it; True if it did.

    Called before the kernel's decorator runs (numba reads the stamp then). A
    read-only install cannot be touched: its files come from one release,
    whose cache entries were written by that release.
    """
    try:
        stamp = os.stat(main_file).st_mtime_ns
        if max(os.stat(f).st_mtime_ns for f in helper_files) <= stamp:
            return False
        os.utime(main_file)
    except OSError:
        return False
    return True


def content_stamp(*files: str) -> bytes:
    """A SHA-256 over the content of every file, in order (what `bind` keys a kernel's cache on)."""
    h = hashlib.sha256()
    for f in files:
        with open(f, "rb") as fh:
            h.update(hashlib.sha256(fh.read()).digest())
    return h.digest()


def bind(kernel: Any, main_file: str, *helper_files: str) -> bool:
    """Key ``kernel``'s on-disk cache on the content of ``main_file`` and of ``helper_files``; True if it did.

    Called right after the decorator, before the kernel is first called (numba
    reads its index then). Sets the stamp numba checks an index entry against
    (its ``IndexDataCacheFile``'s, a private attribute: without it, as on a
    numba that has none, nothing changes and `refresh` is what there is).
    """
    cache_file = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    if cache_file is None or not hasattr(cache_file, "_source_stamp"):
        return False
    try:
        cache_file._source_stamp = content_stamp(main_file, *helper_files)
    except OSError:
        return False
    return True

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
"""

from __future__ import annotations

import os


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

"""Every page's sample points kept on disk, signed, so a cold scan loads them instead of re-deriving them.

A page's sample points (`tabulate.detect.template`: the page rendered at the
scan's resolution, its distance-to-print map and every target's point sets)
cost 0.11-0.28 CPU s a page to build; the sample election's 6 pages ~0.66 CPU s
of every cold scan's start-up (docs/perf.md, "This round (branch cold)"). They
depend only on the election, the DPI class and the code and libraries that
draw and sample the page, so they are built once (the first scan of an
election on this machine) and written here.

What is trusted: nothing read back without its signature. Each file is
``HMAC-SHA256(key, name + payload)`` (72 bytes with its padding) followed by the payload, raw arrays
behind a JSON index (no pickle: no code runs when it loads). The key is 32
random bytes made once per cache folder, readable by its owner only. The file's
name is a digest of the election's hash, the DPI class and `code_fingerprint`
(the source of the modules that build the points and the versions of the
libraries that draw the page): a code or library change names a new file, so a
stale cache is never found; a file whose signature does not verify (edited,
truncated, copied from another folder) is ignored and rebuilt. Anything that
goes wrong here leaves the points to be built as before: it never stops a scan.

The folder: ``$TABULATE_CACHE_DIR``, else ``$XDG_CACHE_HOME/tabulate``, else
``~/.cache/tabulate``; files under ``layouts/``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import mmap
import os
import secrets
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

#: Overrides where the cache lives (tests, a read-only home, a shared scanning station).
CACHE_ENV = "TABULATE_CACHE_DIR"
#: The DPI class cached: scanners send 200 DPI (docs/scanning.md), the class `layouts_warm` builds.
CACHE_DPI = 200
#: The modules whose code decides the points (their source is part of every file's name).
_SOURCES = ("election", "detect/template.py", "kernels/points.py")
#: The libraries that draw the page or store the arrays (their versions are part of every file's name).
_LIBRARIES = ("numpy", "cv2", "PIL", "zxingcpp")
_FIELDS = [
    "outline_xy",
    "outline_w",
    "outline_ptr",
    "interior_xy",
    "interior_col",
    "interior_ncols",
    "interior_ptr",
    "outer_xy",
    "outer_sector",
    "outer_ptr",
    "near_xy",
    "near_sector",
    "near_ptr",
    "mark_xy",
    "mark_cell",
    "mark_dist",
    "mark_ptr",
    "write_in_xy",
    "write_in_dist",
    "write_in_ptr",
]
_HEAD = 72  # the HMAC-SHA256 in hex, padded, and a newline: the payload starts 8-byte aligned


def cache_dir() -> Path:
    """The cache folder (not created here)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tabulate"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of the source that builds the points and of the drawing libraries' versions."""
    import importlib.metadata as md

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for name in _SOURCES:
        p = root / name
        for f in sorted(p.rglob("*.py")) if p.is_dir() else [p]:
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    for lib in _LIBRARIES:
        dist = {"cv2": "opencv-python-headless", "PIL": "pillow", "zxingcpp": "zxing-cpp"}.get(lib, lib)
        try:
            version = md.version(dist)
        except md.PackageNotFoundError:
            version = "?"
        h.update(f"{lib}={version}\0".encode())
    return h.hexdigest()


def cache_path(election, dpi: int = CACHE_DPI) -> Path | None:
    """Where ``election``'s points at ``dpi`` are kept; None for an election without a hash (built in code)."""
    if not election.hash:
        return None
    what = f"{election.hash}\0{election.target_shape}\0{election.paper_size}\0{dpi}\0{code_fingerprint()}"
    return cache_dir() / "layouts" / f"{hashlib.sha256(what.encode()).hexdigest()[:32]}.points.signed"


def _key() -> bytes:
    """The cache folder's signing key, made on first use (owner-only)."""
    path = cache_dir() / "key"
    try:
        key = path.read_bytes()
        if len(key) == 32:
            return key
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"key.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(secrets.token_bytes(32))
    os.replace(tmp, path)  # two first scans at once: one key wins, the other's files fail to verify and are rebuilt
    return path.read_bytes()


def _mac(key: bytes, path: Path) -> hmac.HMAC:
    return hmac.new(key, path.name.encode() + b"\0", hashlib.sha256)


def _pack(election, dpi: int, templates: dict) -> bytes:
    """A JSON index (length-prefixed) then every array's raw bytes, each at an offset a multiple of 8."""
    pages, blobs, offset = [], [], 0
    for (style_id, page), tpl in sorted(templates.items()):
        arrays = []
        for name in _FIELDS:
            a = np.ascontiguousarray(getattr(tpl.points, name))
            arrays.append([a.dtype.str, list(a.shape), offset])
            raw = a.tobytes()
            blobs.append(raw + b"\0" * (-len(raw) % 8))
            offset += len(blobs[-1])
        pages.append({"style": style_id, "page": page, "n": [tpl.points.n_sectors, tpl.points.n_cells], "a": arrays})
    head = json.dumps({"election": election.hash, "dpi": dpi, "pages": pages}).encode()
    head += b" " * (-len(head) % 8)
    return len(head).to_bytes(8, "little") + head + b"".join(blobs)


def save(election, templates: dict, dpi: int = CACHE_DPI) -> Path | None:
    """Write ``{(style_id, page): PageTemplate}`` signed; the file, or None if it could not be written."""
    path = cache_path(election, dpi)
    if path is None or not templates:
        return None
    try:
        payload = _pack(election, dpi, templates)
        mac = _mac(_key(), path)
        mac.update(payload)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(mac.hexdigest().encode().ljust(_HEAD - 1) + b"\n" + payload)
        os.replace(tmp, path)  # never half a file under the real name (a reader maps the old one meanwhile)
        return path
    except OSError:
        return None


def verified_map(path: Path) -> memoryview | None:
    """The file's payload, mapped copy-on-write (writable, shared until written), if its signature verifies.

    Every worker maps and verifies the file itself: no copy through a pipe, the
    pages shared by the processes, and nothing trusted that this process did
    not check. The payload starts at a multiple of 8 bytes, so every array is
    aligned (numba compiles aligned and unaligned arrays apart).
    """
    try:
        key = (cache_dir() / "key").read_bytes()
        with open(path, "rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None
    view = memoryview(mapped)
    if len(key) != 32 or len(view) < _HEAD or view[_HEAD - 1] != ord("\n"):
        return None
    mac = _mac(key, path)
    mac.update(view[_HEAD:])
    if not hmac.compare_digest(bytes(view[: _HEAD - 1]).rstrip(), mac.hexdigest().encode()):
        return None
    return view[_HEAD:]


def verified_payload(election, dpi: int = CACHE_DPI) -> memoryview | None:
    """``election``'s cached payload if its signature verifies; None if there is none, or it is stale or tampered."""
    path = cache_path(election, dpi)
    return None if path is None else verified_map(path)


@dataclass(frozen=True)
class Prepared:
    """What a reader process needs to seed its page templates: the cache file and each page's layout.

    Made by the scan's parent (`prepared`: the file verified, the pages laid
    out, text measured with the font: ~0.1 CPU s for the sample election)
    while the forkserver's preload still runs, so no worker lays them out;
    handed to each worker with the election
    (`tabulate.central.readers.init_reader`), which maps the file, verifies it
    again and seeds its templates (`seed`). Where no file can be kept (a
    folder that cannot be written) the parent's own build travels in
    ``payload`` instead: through the pipe to its own workers, which trust it as
    they trust the election handed to them the same way.
    """

    path: str | None
    layouts: dict  # {(style_id, page): PageLayout}
    payload: bytes | None = None


#: `Prepared` per election hash, made once per process (`ensure` makes it where it can).
_PREPARED: dict[str, Prepared] = {}


def prepared(election, dpi: int = CACHE_DPI) -> Prepared | None:
    """``election``'s verified cache file and page layouts (None: no usable cache; workers build as before)."""
    hit = _PREPARED.get(election.hash)
    if hit is not None:
        return hit
    if verified_payload(election, dpi) is None:
        return None
    _PREPARED[election.hash] = made = Prepared(str(cache_path(election, dpi)), _layouts(election))
    return made


def _layouts(election) -> dict:
    from ..election.layout import layout_style

    return {
        (style.id, page.page): page
        for style in election.ballot_styles
        for page in layout_style(election, style.id).pages
    }


def seed(election, made: Prepared, dpi: int = CACHE_DPI) -> int:
    """Seed this process's page templates from ``made`` (`prepared`); how many pages (0: none usable)."""
    from ..detect.template import seed_template
    from ..kernels import TargetPoints

    if made.path is None:
        payload: memoryview | None = memoryview(bytearray(made.payload or b""))  # writable: numba's array types
    else:
        payload = verified_map(Path(made.path))
    if payload is None:  # changed since the parent checked it: build the points as without a cache
        return 0
    try:
        n = int.from_bytes(payload[:8], "little")
        index = json.loads(bytes(payload[8 : 8 + n]))
        if index["election"] != election.hash or index["dpi"] != dpi:
            return 0
        buf = payload[8 + n :]
        for p in index["pages"]:
            arrays = [
                np.frombuffer(buf, np.dtype(dt), int(np.prod(shape)), off).reshape(shape) for dt, shape, off in p["a"]
            ]
            pts = TargetPoints(*arrays, *(int(k) for k in p["n"]))
            seed_template(election, made.layouts[p["style"], int(p["page"])], dpi, pts)
        return len(index["pages"])
    except Exception:  # a signed file from another version of this module: build the points as before
        return 0


def load(election, dpi: int = CACHE_DPI) -> int:
    """`seed` this process's page templates from the verified cache; how many pages (0: none usable)."""
    made = prepared(election, dpi)
    return 0 if made is None else seed(election, made, dpi)


def build(election, dpi: int = CACHE_DPI) -> dict:
    """Every page template of every style of ``election`` at ``dpi``, built here: ``{(style_id, page): tpl}``."""
    from ..detect.template import page_template
    from ..election.layout import layout_style

    return {
        (style.id, page): page_template(election, style.id, page, dpi)
        for style in election.ballot_styles
        for page in range(1, len(layout_style(election, style.id).pages) + 1)
    }


def ensure(election, dpi: int = CACHE_DPI) -> str:
    """Make sure a verified cache of ``election``'s points exists: "cached", "built", "memory" or "off".

    "memory": built, but no file could be kept (the workers get the points
    from this process); "off": an election without a hash, or a build that
    failed (the workers build the points as they meet each page).

    Called by the scan's parent before its readers start: the first scan of
    an election on this machine builds the points (and pays for it once);
    later ones only check the signature (a few ms). Either way the verified
    payload and the page layouts are kept for the readers (`prepared`).
    """
    if cache_path(election, dpi) is None:
        return "off"
    if prepared(election, dpi) is not None:
        return "cached"
    try:
        templates = build(election, dpi)
    except Exception:  # the readers build what they need, as without a cache
        return "off"
    if save(election, templates, dpi) is not None and prepared(election, dpi) is not None:
        return "built"
    # Nowhere to keep it: the workers get this build from memory rather than each building its own.
    _PREPARED[election.hash] = Prepared(None, _layouts(election), _pack(election, dpi, templates))
    return "memory"

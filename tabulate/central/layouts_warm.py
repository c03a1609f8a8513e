"""Build every page's sample points once, in the scan's forkserver, instead of once per worker.

A page's sample points (`tabulate.detect.template.page_template`: the page
rendered at the scan's resolution, its distance-to-print map and every
target's point sets) cost ~0.14 CPU s to build at 200 DPI, mostly drawing the
ballot's text. Each worker used to build them the first time it met each
style's page: the sample election's 3 styles cost each worker ~0.8 CPU s,
a county with 60 styles ~17 CPU s per worker (docs/perf.md, start-up).

The forkserver cannot be handed arguments, only module names to import, so
the scan writes its election to a private temporary file and names it in
`ELECTION_ENV` before its pool starts (`offer_election`); the forkserver's
preload (`tabulate.central.preload`) builds the templates of every page of
every style at `WARM_DPI` (`warm_layouts_from_env`), and every worker forked
from it inherits them. A page scanned at another resolution is built by the
worker when it is met, as before. Anything that goes wrong here only leaves
the templates to be built later: it never stops a scan.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path

#: The environment variable naming the pickled election the forkserver warms the templates of.
ELECTION_ENV = "TABULATE_PRELOAD_ELECTION"
#: The DPI class warmed: scanners send 200 DPI (docs/scanning.md); a 0.94-1.06 scale stays in this class.
WARM_DPI = 200


def offer_election(election) -> Path | None:
    """Write ``election`` for the forkserver to warm and name it in `ELECTION_ENV`; the file (None on failure).

    The caller removes the file with `withdraw_election` when its readers stop.
    """
    try:
        fd, name = tempfile.mkstemp(prefix="tabulate-layouts-", suffix=".pickle")
    except OSError:
        return None
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(election, f, protocol=pickle.HIGHEST_PROTOCOL)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        Path(name).unlink(missing_ok=True)
        return None
    os.environ[ELECTION_ENV] = name
    return Path(name)


def withdraw_election(path: Path | None) -> None:
    """Forget an offered election (the forkserver has read it by now, or never will)."""
    if path is None:
        return
    if os.environ.get(ELECTION_ENV) == str(path):
        del os.environ[ELECTION_ENV]
    path.unlink(missing_ok=True)


def warm_layouts(election, dpi: int = WARM_DPI) -> int:
    """Build (and cache in this process) every page template of every style of ``election``; how many."""
    from ..detect.template import page_template
    from ..election.layout import layout_style

    built = 0
    for style in election.ballot_styles:
        for page in range(1, len(layout_style(election, style.id).pages) + 1):
            page_template(election, style.id, page, dpi)
            built += 1
    return built


def warm_layouts_from_env() -> int:
    """`warm_layouts` for the election `offer_election` named, if any (0 if none or on any failure)."""
    name = os.environ.get(ELECTION_ENV)
    if not name:
        return 0
    try:
        with open(name, "rb") as f:
            election = pickle.load(f)
        # Read once, when the server starts: removed here too, so a scan killed outright leaves no file.
        Path(name).unlink(missing_ok=True)
        return warm_layouts(election)
    except Exception:  # a warm-up that fails leaves the workers to build the templates: never a failed scan
        return 0

"""What the own-print check's floor (`tabulate.templates.ownprint.likeness`) costs a process, by set size.

The sample election's blanks of one family are imported (every style: 6 pages for timing), then the set is
grown to ``--pages`` by copying its pages under new style ids (``7c1``, ``7c2``, ...), the copies' targets
where the originals' are: many precinct styles of a county print the same ballot, and a copy is a page no
pixel tells from its original (`same_targets`), so the floor a page gets is the one it gets in the small
set. What grows is the number of blanks each page's floor looks at. Every blank is prepared first (the
reader does so when it opens the set, for matching). Printed: CPU seconds for the first page's floor (the
blanks brought to `FINE_DPI` then), for every page's, the unit correlations made (`ownprint.COMPARED`),
the `FINE_DPI` cache's bytes, and each original page's floor and likest wrong name. ``--old FILE`` loads
another version of ``ownprint.py`` (e.g. ``git show main:tabulate/templates/ownprint.py``) in its place.

    python benchmarks/ownprint_cost.py --family timing --pages 120
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabulate.ballots.vendor.write import write_blanks
from tabulate.election import load_election
from tabulate.templates import TemplateReader, import_templates
from tabulate.templates.pages import prepared

GENERAL = Path(__file__).resolve().parents[1] / "samples" / "general" / "election.json"


def grown(tset, pages: int):
    """``tset`` with its pages copied under new style ids until it holds ``pages`` pages."""
    out, k = list(tset.pages), 0
    while len(out) < pages:
        k += 1
        for p in tset.pages[: pages - len(out)]:
            out.append(replace(p, layout=replace(p.layout, style_id=f"{p.style_id}c{k}")))
    return replace(tset, pages=tuple(out), folder=tset.folder)


def _ownprint(old: Path | None):
    if old is None:
        from tabulate.templates import ownprint

        return ownprint
    spec = importlib.util.spec_from_file_location("tabulate.templates.ownprint", old)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("boxes", "timing", "arrows"), default="timing")
    ap.add_argument("--pages", type=int, default=120)
    ap.add_argument("--old", type=Path, help="another version of tabulate/templates/ownprint.py to time")
    args = ap.parse_args(argv)
    ownprint = _ownprint(args.old)
    election = load_election(GENERAL)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        blanks = write_blanks(election, args.family, root / "blanks")
        import_templates(election, blanks, root / "set", score=False)
        small = TemplateReader(str(root / "set")).tset
        tset = grown(small, args.pages)
        for p in tset.pages:
            prepared(tset, p)
        counter = getattr(ownprint, "COMPARED", None)
        t0 = time.process_time()
        ownprint.likeness(tset, tset.pages[0])
        first = time.process_time() - t0
        for p in tset.pages[1:]:
            ownprint.likeness(tset, p)
        every = time.process_time() - t0
        fine = getattr(ownprint, "_FINE", {})
        print(f"family {args.family}: {len(small.pages)} blanks imported, set grown to {len(tset.pages)} pages")
        print(f"  first page's floor  {first:7.2f} CPU s")
        print(f"  every page's floor  {every:7.2f} CPU s ({every / len(tset.pages):.3f} a page)")
        if counter is not None:
            print(f"  unit correlations   {sum(counter.values())} ({max(counter.values())} at most a page)")
        if fine:
            print(f"  FINE_DPI cache      {sum(a.nbytes for a in fine.values()) / 1e6:.1f} MB, {len(fine)} blanks")
        for p in small.pages:
            lk = ownprint.likeness(tset, p)
            print(f"  {p.key:8} floor {lk.floor:.4f}  likest wrong name {lk.wrong:.4f}  units {len(lk.units)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

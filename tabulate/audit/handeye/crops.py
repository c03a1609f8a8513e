"""An image of the audited race on each listed ballot, so the board sees what the counters saw."""

from __future__ import annotations

from pathlib import Path

from ...adjudicate import images
from ...adjudicate.layouts import page_layout
from ...adjudicate.source import SourceError, StoreSource
from ...store import Store
from .state import AuditState


def race_image(source: StoreSource, sheet_id: int, contest_id: str) -> bytes | None:
    """PNG of the race's box on one sheet, targets outlined by class; None without a registered page."""
    sheet = source.sheet(str(sheet_id))
    if not sheet.style_id or sheet.marks is None:
        return None
    election = source.election()
    for page in sheet.pages:
        # The layout the page was read with: a template set's page for a county's own ballots (issue #11).
        layout_page = page_layout(election, sheet, page)
        if layout_page is None or page.affine is None:
            continue
        if contest_id not in {cid for cid, _ in layout_page.contest_boxes}:
            continue
        gray = source.page_image(str(sheet_id), page.side)
        rect = images.rectify(gray, page.affine, layout_page)
        flagged = {r.option_id for r in sheet.reasons if r.contest_id == contest_id and r.option_id}
        return images.png(
            images.contest_zoom(rect, layout_page, contest_id, sheet.marks.marks.get(contest_id, {}), flagged)
        )
    return None


def write_crops(store: Store, state: AuditState, out_dir: str | Path) -> list[Path]:
    """One PNG per listed ballot, named ``<batch>-<position>.png``; ballots without images are skipped."""
    source = StoreSource(store)
    out = Path(out_dir)
    written = []
    for note in state.prediction.ballots:
        try:
            png = race_image(source, note.sheet_id, state.contest.id)
        except (SourceError, OSError):
            png = None
        if png is None:
            continue
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{note.batch}-{note.position:05d}.png"
        path.write_bytes(png)
        written.append(path)
    return written

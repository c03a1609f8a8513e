"""Ballot images, by sheet id and page number only.

A request names a sheet and a side; the file is the one the store recorded
for that side, checked against its sha256 (`StoreSource.page_image`). Contest
and option ids are looked up in the sheet's layout; nothing in a URL reaches
the file system. A reviewer sees only the ballot their team holds; a board
member any ballot in the review queue; other roles none.
"""

from __future__ import annotations

from starlette.responses import Response

from .. import images, queue
from ..layouts import page_layout
from ..source import ReviewSheet, SourceError
from .context import Ctx, endpoint, forbidden

_HEADERS = {"Cache-Control": "private, no-store"}


def _allowed(ctx: Ctx, sheet_id: str) -> bool:
    if ctx.user.may("explain"):
        return True  # the board and the administrator explain any ballot, flagged or not
    row = queue.queue_row(ctx.conn, sheet_id)
    if row is None:
        return False
    if ctx.user.may("board"):
        return True
    panel = ctx.panel()
    return panel is not None and row.lease_panel == panel.key


def _load(ctx: Ctx, sheet_id: str, side: int) -> tuple[ReviewSheet, object, object] | Response:
    if not _allowed(ctx, sheet_id):
        return forbidden(ctx, "This ballot is not yours to see.", 403)
    try:
        sheet = ctx.source.sheet(sheet_id)
    except SourceError as e:
        return forbidden(ctx, str(e), 404)
    page = next((p for p in sheet.pages if p.side == side), None)
    if page is None:
        return forbidden(ctx, f"Sheet {sheet_id} has no page {side}.", 404)
    try:
        gray = images.cached((page.sha256, "gray"), lambda: ctx.source.page_image(sheet_id, side))
    except SourceError as e:
        return forbidden(ctx, str(e), 410)
    return sheet, page, gray


def _png(image) -> Response:
    return Response(images.png(image), media_type="image/png", headers=_HEADERS)


@endpoint(None)  # `_allowed` decides: the panel holding the ballot, the board, or explain
def page_image(ctx: Ctx, sheet_id: str, side: int) -> Response:
    loaded = _load(ctx, sheet_id, side)
    if isinstance(loaded, Response):
        return loaded
    sheet, page, gray = loaded
    # Registered pages are shown rectified onto the layout: upright even when fed upside down.
    _, rect = _rectified(ctx, sheet, page, gray)
    return _png(images.page_view(rect if rect is not None else gray))


def _rectified(ctx: Ctx, sheet: ReviewSheet, page, gray):
    """The page resampled onto the layout it was read with (the template set's page, or ours)."""
    try:
        layout_page = page_layout(ctx.source.election(), sheet, page)
    except SourceError:
        return None, None  # read with a set the store does not hold: shown as scanned, no crops
    if layout_page is None:
        return None, None
    rect = images.cached((page.sha256, "rect"), lambda: images.rectify(gray, page.affine, layout_page))
    return layout_page, rect


@endpoint(None)  # `_allowed` decides: the panel holding the ballot, the board, or explain
def contest_image(ctx: Ctx, sheet_id: str, side: int, contest_id: str) -> Response:
    loaded = _load(ctx, sheet_id, side)
    if isinstance(loaded, Response):
        return loaded
    sheet, page, gray = loaded
    layout_page, rect = _rectified(ctx, sheet, page, gray)
    if rect is None or contest_id not in {cid for cid, _ in layout_page.contest_boxes}:
        return forbidden(ctx, "No such contest on this page.", 404)
    marks = sheet.marks.marks.get(contest_id, {}) if sheet.marks else {}
    flagged = {r.option_id for r in sheet.reasons if r.contest_id == contest_id and r.option_id}
    return _png(images.contest_zoom(rect, layout_page, contest_id, marks, flagged))


@endpoint(None)  # `_allowed` decides: the panel holding the ballot, the board, or explain
def area_image(ctx: Ctx, sheet_id: str, side: int, contest_id: str, option_id: str, area: str) -> Response:
    if area not in ("marking", "write_in"):
        return forbidden(ctx, "No such area.", 404)
    loaded = _load(ctx, sheet_id, side)
    if isinstance(loaded, Response):
        return loaded
    sheet, page, gray = loaded
    layout_page, rect = _rectified(ctx, sheet, page, gray)
    target = next(
        (
            t
            for t in (layout_page.targets if layout_page else ())
            if (t.contest_id, t.option_id) == (contest_id, option_id)
        ),
        None,
    )
    if rect is None or target is None:
        return forbidden(ctx, "No such target on this page.", 404)
    if area == "marking":
        # The target and its designated marking area (the name beside it): where §3(1) marks are.
        box = target.marking_area
        x0 = min(target.bounds.x, box.x)
        region = type(box)(
            x0,
            min(box.y, target.bounds.y),
            box.x + box.w - x0,
            max(box.y + box.h, target.bounds.y + target.bounds.h) - min(box.y, target.bounds.y),
        )
    else:
        if target.write_in_area is None:
            return forbidden(ctx, "This option has no write-in area.", 404)
        region = target.write_in_area
    return _png(images.crop(rect, region))

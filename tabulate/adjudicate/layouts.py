"""Which layout a scanned sheet's transform maps onto: our own, or the template set's it was read with.

A sheet of ours is laid out by `tabulate.election.layout.layout_style`. A
sheet read with a template set (``tabulate scan --templates DIR``, issue
#11) sits on the set's pages instead: other contest boxes, targets, marking
and write-in areas, sometimes another split of contests between front and
back. The store records the set (`tabulate.templates.recorded`), so every
picture a person is shown - the review app's zooms and crops, explain, the
hand-to-eye audit's race pictures - is cut from the geometry the reader
scored, never from ours.
"""

from __future__ import annotations

from ..election import Election
from ..election.layout import PageLayout, layout_style
from ..templates import style_pages
from .source import PageSide, ReviewSheet, SourceError


def style_layout(election: Election, sheet: ReviewSheet, style_id: str | None = None) -> tuple[PageLayout, ...]:
    """The page layouts of ``style_id`` (default the sheet's) as this sheet was read: front first.

    Raises `SourceError` when the sheet was read with a template set the store does not record
    (a store scanned before sets were recorded): our layout would put the crops in the wrong place.
    """
    style = style_id or sheet.style_id
    if not style:
        return ()
    if sheet.template_set is None:
        return layout_style(election, style).pages
    if sheet.templates is None:
        raise SourceError(
            f"sheet {sheet.sheet_id} was read with template set {sheet.template_set[:12]}, which this store "
            "does not record: scan it again with `tabulate scan --templates DIR` to show its pictures"
        )
    # Also for a style a team picks when entering a damaged sheet by hand: the county's ballot, not ours.
    return style_pages(sheet.templates, style)


def page_layout(election: Election, sheet: ReviewSheet, side: PageSide) -> PageLayout | None:
    """The layout page one scanned image was registered onto, or None when it was not registered."""
    if side.affine is None or side.layout_page is None or not sheet.style_id:
        return None
    return next((p for p in style_layout(election, sheet) if p.page == side.layout_page), None)

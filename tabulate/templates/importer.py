"""``tabulate templates import``: blank pages + the election -> a template set (see `tabulate.templates.model`).

For each blank page: find its targets and contest groups (`tabulate.templates.find`),
decide which style and page it is (the map file, else the only style whose
contests' target counts the page's groups spell, front from the start of the
style's contest list, back from its end), give the targets the contests'
options in reading order (candidates, then write-in lines; yes, then no),
and find each option's designated marking area and each write-in line's
writing area. A contest whose target count differs from the election stops
the import with the page, the contest and both counts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ..election.geometry import Rect
from ..election.layout import PageLayout, TargetLayout
from ..election.model import Contest, Election
from .blanks import Blank, load_blanks
from .codes import find_code
from .find import FoundGroup, FoundTarget, find_targets, group_targets, ink_mask
from .model import TemplateError, TemplatePage, TemplateSet
from .proof import proof_image
from .rows import row_span
from .twosheets import one_off, refuse_second_sheet


@dataclass(frozen=True)
class PageMap:
    """A person's overrides for one blank page (from MAP.json)."""

    style: str | None = None
    page: int | None = None
    precinct: str | None = None
    ignore: tuple[Rect, ...] = ()
    assign: tuple[tuple[float, float, str, str], ...] = ()  # (x, y) inside a target -> contest, option


def read_map(path: Path | None) -> tuple[dict[str, PageMap], tuple[tuple[str, str, int], ...]]:
    """MAP.json: ``{"pages": {NAME: {"style", "page", "precinct", "ignore": [[x, y, w, h]],
    "assign": [{"at": [x, y], "contest", "option"}]}}, "code_patterns": [[REGEX, STYLE, PAGE]]}``."""
    if path is None:
        return {}, ()
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise TemplateError(f"{path}: cannot read the map file: {e}") from None
    pages = {}
    for name, m in doc.get("pages", {}).items():
        pages[name] = PageMap(
            m.get("style"),
            m.get("page"),
            m.get("precinct"),
            tuple(Rect(*r) for r in m.get("ignore", ())),
            tuple((float(a["at"][0]), float(a["at"][1]), a["contest"], a["option"]) for a in m.get("assign", ())),
        )
    return pages, tuple((p, str(s), int(n)) for p, s, n in doc.get("code_patterns", ()))


def _contains(r: Rect, x: float, y: float) -> bool:
    return r.x <= x <= r.right and r.y <= y <= r.bottom


def column_starts(groups: list[FoundGroup]) -> list[bool]:
    """Whether each group (in reading order) is the first of a new column: where a contest may continue."""
    return [k > 0 and abs(g.area.x - groups[k - 1].area.x) >= 0.5 for k, g in enumerate(groups)]


def _spans(want: list[int], sizes: list[int], starts: list[bool]) -> list[list[int]] | None:
    """The page's groups as the contests ``want`` (their target counts) in order: each contest one group,
    or one group continued at the top of the next column(s); None unless every group and contest is used."""
    spans, k = [], 0
    for n in want:
        if k == len(sizes):
            return None
        span, total = [k], sizes[k]
        k += 1
        while total < n and k < len(sizes) and starts[k]:
            span.append(k)
            total += sizes[k]
            k += 1
        if total != n:
            return None
        spans.append(span)
    return spans if k == len(sizes) else None


def page_spans(
    election: Election, style: str, page: int, sizes: list[int], starts: list[bool] | None
) -> tuple[int, list[list[int]]] | None:
    """(the page's first contest's index in the style, the groups of each of its contests) when the
    groups spell that style's page: one group a contest; else (``starts`` given) with a long contest
    continued in the next column, as vendors print one that does not fit the rest of its column."""
    want = [len(c.options) for c in election.style_contests(style)]
    flat = [False] * len(sizes)
    for cont in (flat, starts) if starts is not None and any(starts) else (flat,):
        for m in range(len(sizes), 0, -1):
            if m > len(want) - (page == 2):  # a back never holds every contest
                continue
            part = want[:m] if page == 1 else want[-m:]
            spans = _spans(part, sizes, cont)
            if spans is not None:
                return (0 if page == 1 else len(want) - m), spans
    return None


def _fits(election: Election, name: str, sizes: list[int], starts: list[bool] | None = None) -> list[tuple[str, int]]:
    """Every (style, page) whose contests' target counts the page's groups spell; `TemplateError` if none.

    A page with no targets at all (a back the vendor left blank, or printed with instructions only) fits
    the back of every style: which one is settled by the page before it (`resolve_pages`) or the map.
    A contest continued at the top of the next column (``starts``) is tried only when nothing fits without.
    """
    if not sizes:
        return [(style.id, 2) for style in election.ballot_styles]
    found, near = [], []
    for style in election.ballot_styles:
        want = [len(c.options) for c in election.style_contests(style.id)]
        for page, part in ((1, want[: len(sizes)]), (2, want[-len(sizes) :] if sizes else [])):
            if part == sizes and sizes and len(sizes) < len(want) + (page == 1):
                found.append((style.id, page))
            else:
                same = next((i for i, (a, b) in enumerate(zip(sizes, part)) if a != b), min(len(sizes), len(part)))
                near.append((same, style.id, page))
    if not found and starts is not None and any(starts):
        found = [
            (style.id, page)
            for style in election.ballot_styles
            for page in (1, 2)
            if page_spans(election, style.id, page, sizes, starts) is not None
        ]
    if found:
        return found
    if not one_off(election, sizes):  # not a page with one contest's count off: a second sheet's?
        refuse_second_sheet(election, name, sizes)
    same, near_style, page = max(near)
    contests = election.style_contests(near_style)
    off = 0 if page == 1 else len(contests) - len(sizes)
    if same < len(sizes) and 0 <= off + same < len(contests):
        c = contests[off + same]
        raise TemplateError(
            f"{name}: contest {c.id!r} (style {near_style} page {page}) has {sizes[same]} targets "
            f"on the page; the election has {len(c.options)} (candidates + write-in lines)"
        )
    raise TemplateError(
        f"{name}: its {len(sizes)} contests ({sizes} targets) fit no ballot style of the "
        "election; set its style and page in the map file"
    )


def resolve_pages(names: list[str], fits: list[list[tuple[str, int]]]) -> list[tuple[str, int]]:
    """Give each blank one (style, page): a page only one blank fits is that blank's; a blank right after
    page 1 of a style is that style's page 2 when it fits it (and one right before page 2, its page 1);
    repeated until nothing changes."""
    fits = [list(f) for f in fits]
    chosen: list[tuple[str, int] | None] = [f[0] if len(f) == 1 else None for f in fits]
    changed = True
    while changed:
        changed = False
        taken = {c for c in chosen if c is not None}
        for i, f in enumerate(fits):
            if chosen[i] is not None:
                continue
            left = [c for c in f if c not in taken]
            prev = chosen[i - 1] if i else None
            nxt = chosen[i + 1] if i + 1 < len(chosen) else None
            if prev is not None and prev[1] == 1 and (prev[0], 2) in left:
                left = [(prev[0], 2)]
            elif nxt is not None and nxt[1] == 2 and (nxt[0], 1) in left:
                left = [(nxt[0], 1)]
            if len(left) == 1:
                chosen[i], changed = left[0], True
                taken.add(left[0])
    for name, f, c in zip(names, fits, chosen):
        if c is None:
            raise TemplateError(
                f"{name}: fits {' and '.join(f'style {s} page {p}' for s, p in f)} equally; "
                "set its style and page in the map file"
            )
    return chosen  # type: ignore[return-value]


def _write_in_line(ink: np.ndarray, dpi: float, x0: float, x1: float, y0: float, y1: float) -> float | None:
    """The y (inches) of the longest horizontal rule in a region, if it spans half its width."""
    r0, r1, c0, c1 = (int(v * dpi) for v in (y0, y1, x0, x1))
    band = ink[max(0, r0) : r1, max(0, c0) : c1] > 0
    if band.size == 0:
        return None
    counts = band.sum(axis=1)
    r = int(np.argmax(counts))
    return (r0 + r) / dpi if counts[r] >= 0.5 * (c1 - c0) else None


#: The marking area ends this far past the row's printed text (a name, a party), at least `MIN_ROW_IN` wide.
ROW_MARGIN_IN = 0.5
MIN_ROW_IN = 1.5
#: A gap this wide with no print ends a row's text (what lies beyond is another column, or timing marks).
ROW_GAP_IN = 0.6
#: The marking area stops this far inside its contest's area: clear of a thick box rule, which a
#: scan registered to within the allowed residual may put a few pixels off.
AREA_EDGE_IN = 0.1


def _row_end(ink: np.ndarray, dpi: float, x0: float, x1: float, top: float, bottom: float) -> float:
    """Where the designated marking area beside a name ends: `ROW_MARGIN_IN` past the row's text.

    31 KAR 6:030 Section 3(1)(e) counts a mark "next to the candidate's name or
    question choice": the name's row, not the page's whole width (a speck by
    the timing marks, a scribble in the far margin is not next to the name).
    The text ends at the first print-free gap of `ROW_GAP_IN`.
    """
    r0, r1 = max(0, int(top * dpi)), max(0, int(bottom * dpi))
    c0, c1 = max(0, int(x0 * dpi)), max(0, int(x1 * dpi))
    cols = np.flatnonzero((ink[r0:r1, c0:c1] > 0).any(axis=0)) if r1 > r0 and c1 > c0 else np.zeros(0, int)
    end = 0
    for c in cols:
        if c - end > ROW_GAP_IN * dpi and end:
            break
        end = int(c)
    text_end = x0 + end / dpi
    return min(x1, max(x0 + MIN_ROW_IN, text_end + ROW_MARGIN_IN))


def _areas(ink: np.ndarray, dpi: float, group: FoundGroup, i: int, write_in: bool) -> tuple[Rect, Rect | None]:
    """The designated marking area beside target ``i`` of a group, and its write-in area (write-in lines)."""
    t = group.targets[i]
    cx, cy = t.bounds.center
    # The rows above and below, and a target beside it on its row (`tabulate.templates.rows`).
    above, below, before, after = row_span(group.targets, i)
    top = (above + cy) / 2 if above is not None else t.bounds.y - 0.08
    bottom = (below + cy) / 2 if below is not None else min(group.area.bottom, cy + 0.45)
    if group.names_left:  # the name, then its target: the row from the contest's left edge to the target
        # (a party printed by the target leaves a wide gap before a short name: no `_row_end` here).
        x1 = t.bounds.x - 0.03
        x0 = min(group.area.x + AREA_EDGE_IN, x1 - MIN_ROW_IN) if before is None else before + 0.03
    else:
        x0 = t.bounds.right + t.head_in + 0.03
        end = group.area.right - AREA_EDGE_IN if after is None else after - 0.05
        x1 = _row_end(ink, dpi, x0, end, top, bottom)
    marking = Rect(x0, top + 0.01, max(0.1, x1 - x0), max(0.1, bottom - top - 0.02))
    if not write_in:
        return marking, None
    line = _write_in_line(ink, dpi, x0 + 0.1, x1, cy, bottom)
    base = line if line is not None else bottom - 0.05
    area_top = max(top + 0.01, cy - 0.14)
    return marking, Rect(x0 + 0.05, area_top, max(0.1, x1 - x0 - 0.05), max(0.05, base - area_top - 0.005))


def _assign(
    election: Election,
    name: str,
    blank: Blank,
    style: str,
    page: int,
    groups: list[FoundGroup],
    fixed: list[tuple[FoundTarget, str, str]],
) -> tuple[list[TargetLayout], list[tuple[str, Rect]]]:
    contests = election.style_contests(style)
    sizes = [len(g.targets) for g in groups]
    found = page_spans(election, style, page, sizes, column_starts(groups))
    off, spans = found if found is not None else (0 if page == 1 else len(contests) - len(sizes), None)
    ink = ink_mask(blank.image)
    targets: list[TargetLayout] = []
    areas: list[tuple[str, Rect]] = []
    for k, span in enumerate(spans if spans is not None else [[k] for k in range(len(groups))]):
        c: Contest = contests[off + k]
        opts = c.options
        got = sum(len(groups[j].targets) for j in span)
        if got != len(opts):
            raise TemplateError(
                f"{name}: contest {c.id!r} has {got} targets on the page; the "
                f"election has {len(opts)} (candidates + write-in lines)"
            )
        rows = [(g, i, t) for g in (groups[j] for j in span) for i, t in enumerate(g.targets)]
        for (g, i, t), o in zip(rows, opts):  # a continued contest's options run on in the next column
            marking, wa = _areas(ink, blank.dpi, g, i, o.kind == "write_in")
            targets.append(TargetLayout(c.id, o.id, o.kind, t.shape, t.bounds, marking, wa))
        areas.extend((c.id, groups[j].area) for j in span)
    for t, cid, oid in fixed:  # a person's assignment
        c = election.contest(cid)
        chosen = next((x for x in c.options if x.id == oid), None)
        if chosen is None:
            raise TemplateError(f"{name}: the map assigns a target to {cid}/{oid}, which the election does not have")
        g = FoundGroup((t,), Rect(t.bounds.x - 0.1, t.bounds.y - 0.1, 2.5, 0.5))
        marking, wa = _areas(ink, blank.dpi, g, 0, chosen.kind == "write_in")
        targets = [x for x in targets if (x.contest_id, x.option_id) != (cid, oid)]
        targets.append(TargetLayout(cid, oid, chosen.kind, t.shape, t.bounds, marking, wa))
    return targets, areas


def find_groups(blank: Blank, m: PageMap = PageMap()) -> tuple[list[FoundGroup], list]:
    """The contest groups of a blank page and the targets the map assigns by hand."""
    found, boxes = find_targets(blank.image, blank.dpi)
    ignore = {i for i, t in enumerate(found) if any(_contains(r, *t.bounds.center) for r in m.ignore)}
    fixed = []
    for x, y, cid, oid in m.assign:
        hit = next((i for i, t in enumerate(found) if _contains(t.bounds.inset(-0.03), x, y)), None)
        if hit is None:
            raise TemplateError(f"{blank.name}: the map assigns the target at ({x}, {y}) in, where no target is")
        ignore.add(hit)
        fixed.append((found[hit], cid, oid))
    return group_targets(blank.image, blank.dpi, found, boxes, ignore), fixed


def import_page(
    election: Election,
    blank: Blank,
    style: str,
    page: int,
    groups: list[FoundGroup],
    fixed: list,
    m: PageMap = PageMap(),
) -> TemplatePage:
    """One blank page -> its template page (without blank scores)."""
    targets, areas = _assign(election, blank.name, blank, style, page, groups, fixed)
    code = find_code(blank.image, blank.dpi)
    w, h = blank.paper_in
    layout = PageLayout(style, page, w, h, (), code.rect if code else Rect(0, 0, 0, 0), tuple(targets), tuple(areas))
    precinct = m.precinct or election.style(style).precincts[0]
    return TemplatePage(
        layout, blank.dpi, f"{style}-p{page}.png", blank.name, code, (), precinct, blank.watermark_in2, blank.tint_in
    )


def import_templates(
    election: Election, paths: list[Path], out: Path, map_path: Path | None = None, score: bool = True
) -> TemplateSet:
    """Import blank pages into a template set folder ``out``; `TemplateError` (one line) on any problem.

    Every blank target is scored as a scanned page's would be (`tabulate.templates.placement.blank_scores`);
    the set's blank level is their maximum and its marginal threshold is kept above it.
    """
    from .placement import blank_scores

    maps, patterns = read_map(map_path)
    blanks = load_blanks(paths)
    if not blanks:
        raise TemplateError("no blank pages were given")
    out.mkdir(parents=True, exist_ok=True)
    found, fits = [], []
    for b in blanks:
        m = maps.get(b.name) or maps.get(b.name.split("#")[0]) or PageMap()
        groups, fixed = find_groups(b, m)
        found.append((b, m, groups, fixed))
        fits.append(
            [(m.style, int(m.page))]
            if m.style is not None and m.page is not None
            else _fits(election, b.name, [len(g.targets) for g in groups], column_starts(groups))
        )
    pages = []
    seen: dict[str, str] = {}
    for (b, m, groups, fixed), (style, page) in zip(found, resolve_pages([f[0].name for f in found], fits)):
        tp = import_page(election, b, style, page, groups, fixed, m)
        if tp.key in seen:
            raise TemplateError(
                f"{b.name}: is style {tp.style_id} page {tp.page}, like {seen[tp.key]}; "
                "set one's style and page in the map file"
            )
        seen[tp.key] = b.name
        cv2.imwrite(str(out / tp.blank_file), b.image)
        cv2.imwrite(str(out / f"{tp.key}-proof.png"), proof_image(b.image, b.dpi, tp.layout))
        pages.append((tp, b))
    th = election.thresholds
    tset = TemplateSet(election.hash, tuple(p for p, _b in pages), th.marginal, th.definite, 0.0, patterns, str(out))
    if score:
        scored = []
        for tp, b in pages:
            scored.append(
                TemplatePage(
                    tp.layout,
                    tp.dpi,
                    tp.blank_file,
                    tp.source,
                    tp.code,
                    tuple(blank_scores(election, tset, tp, b.image)),
                    tp.precinct_id,
                    tp.watermark_in2,
                    tp.tint_bands_in,
                )
            )
        level = max((s for p in scored for s in p.blank_scores), default=0.0)
        # A blank target must never reach the marginal threshold: raise it above the blank level.
        marginal = max(th.marginal, round(level + 0.02, 3))
        tset = TemplateSet(
            election.hash, tuple(scored), marginal, max(th.definite, marginal + 0.1), level, patterns, str(out)
        )
    tset.save(out)
    return tset

"""Read a scanned page with a template set: identify the page, register it, score it as our own pages are scored.

Which page is this? By code first: the best-matching template's code (a QR
symbol or a timing-mark row) is read where that template prints it, and the
set maps its text to a style and page. When the code does not read, by
matching (`tabulate.templates.matching`): the page, registered, is compared
at 25 DPI with every blank (at 50 DPI where two close blanks differ) and the
best must be clear; else the page is refused (``no_template_match`` or ``template_ambiguous``).

After that the page is scored by the native kernel with the template's
point sets (`tabulate.templates.pages.scoring_template`) and classified with
the set's thresholds, so scores, marking areas, write-in ink and the
hand-count reading (31 KAR 6:030 Section 3(1)) mean what they mean on our
own ballots.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from functools import lru_cache

import cv2
import numpy as np
import zxingcpp

from ..detect.dither import DIFFUSED_FLAG, undither
from ..detect.errors import ReadError
from ..detect.reading import PageReading
from ..detect.register import Registration
from ..detect.score import page_features, score_page
from ..detect.settings import DEFAULT_SETTINGS, ReadSettings
from ..detect.streaks import streak_columns
from ..detect.template import dpi_class
from ..election.model import Election, Thresholds
from .align import (
    COARSE_DPI,
    FINE_DPI,
    MAX_RESIDUAL_IN,
    Coarse,
    coarse,
    coarse_to_image,
    fit_anchors,
    half_image,
    level,
    near_angles,
    nominal,
    prepare,
    print_angle,
    refine,
    shrink,
)
from .background import paint_background
from .codes import read_code, read_qr_near
from .creases import crease_rows
from .dotted import TARGET_MARGIN_IN, dotted_streaks, is_bitonal, suspect, target_boxes
from .exports import page_dpi, paper_of, paper_rows
from .likeness import TWIN_FLAG, bare_as, same_targets
from .matching import (
    SCREEN_DPI,
    MatchBasis,
    PagePixels,
    confirm_code,
    frame_as_blank,
    levels_table,
    match_page,
    screen_image,
)
from .model import TemplatePage, TemplateSet, load_set
from .noise import page_settings
from .ownprint import check_own_print
from .pages import prepared, scoring_template
from .placement import OffImage, anchors_needed, columns_upright, enough_anchors, place_page
from .sidescale import sides_disagree
from .tintstreaks import page_bands, tint_streaks

FULL_ITERATIONS = 25
#: Candidate (template, quarter turn) fits tried before a page is refused as not registering.
FIT_TRIES = 3


@lru_cache(maxsize=8)
def _load(folder: str) -> TemplateSet:
    return load_set(folder)


class TemplateReader:
    """Reads pages with the template set in ``folder`` (a `tabulate.detect.read.PageReader`); picklable."""

    def __init__(self, folder: str):
        self.folder = str(folder)
        self._mean: np.ndarray | None = None
        self._set_angle: float | None = None
        self._formats: dict[tuple[str, ...], zxingcpp.BarcodeFormats | None] = {}
        self._bases: tuple[dict, dict] | None = None
        self.tset = _load(self.folder)
        self.paper_in = (self.tset.pages[0].layout.width_in, self.tset.pages[0].layout.height_in)
        #: Every paper the set's pages are on, shortest first (a set may mix lengths by style).
        self.papers = sorted({(p.layout.width_in, p.layout.height_in) for p in self.tset.pages}, key=lambda p: p[1])

    #: Both sides of a sheet placed at one scale, or a person reads it (`tabulate.detect.pair_pages`).
    sides_disagree = staticmethod(sides_disagree)

    def __getstate__(self):  # workers load the set themselves
        return {"folder": self.folder}

    def __setstate__(self, state):
        self.__init__(state["folder"])

    @property
    def thresholds(self) -> Thresholds:
        return Thresholds(self.tset.marginal, self.tset.definite)

    def page_targets(self, election: Election, style_id: str, page: int) -> int:
        p = self.tset.page_for(style_id, page)
        return 0 if p is None else len(p.layout.targets)

    def read_image(
        self,
        election: Election,
        image: np.ndarray,
        *,
        source: str = "<array>",
        index: int = 0,
        digest: str = "",
        settings: ReadSettings = DEFAULT_SETTINGS,
        _timings: list | None = None,
    ) -> PageReading:
        """Read one decoded page (greyscale ``uint8``) with the set; never raises."""
        timings = _timings if _timings is not None else []
        base: dict = {"source": source, "index": index, "digest": digest, "template_set": self.tset.digest}
        diffused: tuple[str, ...] = ()  # flagged so `status` can tell the clerk (`tabulate.central.diffused`)
        try:
            if image.dtype != np.uint8 or image.ndim != 2:
                raise ReadError(
                    "unsupported_image", f"expected a 2-D uint8 greyscale image, got {image.dtype} {image.shape}"
                )
            base.update(width_px=int(image.shape[1]), height_px=int(image.shape[0]))
            t0 = time.perf_counter()
            grey = undither(image)  # error-diffused dots back to grey
            diffused = (DIFFUSED_FLAG,) if grey is not image else ()
            image = paint_background(grey)  # a black background
            tp, reg, twin = self._identify(image)
            t1 = time.perf_counter()
            timings.append(("register", (t1 - t0) * 1e3))
            base.update(
                **reg.evidence(),
                hash_prefix=election.hash_prefix,
                style_id=tp.style_id,
                precinct_id=tp.precinct_id,
                page=tp.page,
            )
            upright, scoring_reg = columns_upright(image, reg)
            r0, r1 = paper_rows(upright.shape, scoring_reg.affine, tp.layout.width_in, tp.layout.height_in, reg.dpi)
            streaks = streak_columns(upright[r0:r1], reg.dpi, reg.paper, reg.ink)
            tinted = tint_streaks(upright, scoring_reg.affine, lambda: page_bands(self.tset, tp), reg.dpi)
            streaks = streaks if tinted is None else streaks | tinted  # streaks only a shaded row shows
            tpl = scoring_template(self.tset, tp, dpi_class(reg.px_per_in))
            targets, flags = self._score(election, upright, scoring_reg, tp, tpl, settings, streaks)
            if suspect(targets) and is_bitonal(upright):
                # Only a page about to go to a person is looked at for dotted streaks (~0.1 s a page).
                boxes = target_boxes(tp.layout.targets, scoring_reg.affine, r0, TARGET_MARGIN_IN)
                dotted = dotted_streaks(upright[r0:r1], reg.dpi, boxes)
                if dotted is not None and (dotted & ~streaks).any():
                    streaks = streaks | dotted
                    targets, flags = self._score(election, upright, scoring_reg, tp, tpl, settings, streaks)
            timings.append(("score", (time.perf_counter() - t1) * 1e3))
            flags = (*flags, TWIN_FLAG) if twin else flags
            flags = (*flags, *diffused)
            return PageReading(**base, targets=targets, flags=flags, timings_ms=tuple(timings))
        except ReadError as e:
            return PageReading(**base, reason_code=e.code, reason=e.reason, flags=diffused, timings_ms=tuple(timings))
        except Exception as e:  # a bug must not stop the batch; the reading says so
            return PageReading(
                **base,
                reason_code="internal_error",
                reason=f"reader error {type(e).__name__}: {e}",
                flags=diffused,
                timings_ms=tuple(timings),
            )

    def _score(self, election, upright, scoring_reg, tp: TemplatePage, tpl, settings: ReadSettings, streaks):
        """The page's target readings and flags, the ``streaks`` columns skipped."""
        slack = settings.search_in
        _tpl, feats = page_features(election, upright, scoring_reg, tp.style_id, tp.page, settings, streaks, tpl, slack)
        return score_page(
            election,
            upright,
            scoring_reg,
            tp.style_id,
            tp.page,
            page_settings(feats, self.thresholds, settings),
            streaks,
            tpl=tpl,
            thresholds=self.thresholds,
            # The local search may slide a target's points by its radius: the printed name beside
            # an arrow (whose outline pins it less than an oval's) must not come into its marking area.
            area_slack_in=slack,
            creases_in=lambda: crease_rows(upright, scoring_reg.affine, (tp.layout.width_in, tp.layout.height_in)),
            features=feats,
        )

    # -- identification and registration ---------------------------------------------------------
    def _mean_small(self) -> np.ndarray:
        """Every template's coarse blank averaged: what all pages of the set print alike (the frame)."""
        if self._mean is None:
            smalls = [prepared(self.tset, p).small for p in self.tset.pages]
            shape = (max(a.shape[0] for a in smalls), max(a.shape[1] for a in smalls))
            self._mean = np.mean(
                [np.pad(a, ((0, shape[0] - a.shape[0]), (0, shape[1] - a.shape[1]))) for a in smalls], axis=0
            ).astype(np.float32)
        return self._mean

    def _match_bases(self) -> tuple[dict[tuple[int, int], MatchBasis], dict[tuple[int, int], MatchBasis]]:
        """The blanks stacked for matching (`SCREEN_DPI`) and for ranking (`COARSE_DPI`), once per reader."""
        if self._bases is None:
            self._bases = (MatchBasis.of(self.tset), MatchBasis.of(self.tset, coarse=True))
        return self._bases

    def _angles(self, skew: float | None, tp: TemplatePage | None = None) -> tuple[float, ...] | None:
        """The skews to try: near the page's print skew less the blank's (the set's median blank's when
        ``tp`` is None); None (the whole sweep) when ``skew`` is None."""
        if skew is None:
            return None
        if tp is not None:
            return near_angles(skew - prepared(self.tset, tp).angle)
        if self._set_angle is None:
            self._set_angle = float(np.median([prepared(self.tset, p).angle for p in self.tset.pages]))
        return near_angles(skew - self._set_angle)

    def _candidates(
        self, small: np.ndarray, turns: tuple[int, int], skew: float | None
    ) -> Iterator[tuple[float, TemplatePage, Coarse]]:
        """Every template ranked by its correlation with the page, once the page is turned, deskewed and
        shifted onto the set's common frame (`_mean_small`): the better turn's templates first. Lazy:
        the other turn is ranked only if `FIT_TRIES` are not used up by then (a set of one or two pages)."""
        mean = self._mean_small()
        fits = sorted((coarse(mean, small, k, self._angles(skew)) for k in turns), key=lambda c: -c.rho)
        for c in fits:
            turned = np.ascontiguousarray(np.rot90(small, c.k))
            ranked: list[tuple[float, TemplatePage, Coarse]] = []
            for (h, w), basis in self._match_bases()[1].items():  # one warp and one product per blank shape
                frame = cv2.warpAffine(
                    turned, c.warp.astype(np.float32), (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
                )
                ranked.extend((rho, tp, c) for rho, tp in basis.correlations(frame))
            ranked.sort(key=lambda x: -x[0])
            yield from ranked

    def _code_first(
        self, image: np.ndarray, dpi: float, turns: tuple[int, int], paper: tuple[float, float]
    ) -> list[tuple[float, TemplatePage, int]]:
        """A QR code read where the set prints it on an unskewed page: its page, both turns, first (cheap)."""
        coded = [p for p in self.tset.pages if p.code is not None and p.code.kind == "qr"]
        rects = {p.code.rect for p in coded if p.code is not None}
        formats = self._code_formats(coded)
        for rect in rects:
            for k in turns:
                text = read_qr_near(image, nominal(image.shape, k, dpi, *paper), rect, formats=formats, dpi=dpi)
                named = self.tset.page_for_code(text) if text else None
                if named is not None:
                    return [(1.0, named, k), (0.0, named, (k + 2) % 4)]
        return []

    def _code_formats(self, pages: list[TemplatePage]) -> zxingcpp.BarcodeFormats | None:
        """The symbologies ``pages`` print their bar codes in (None, every one, if any is not known); made
        once per reader and list of pages (each page asked it anew)."""
        key = tuple(p.key for p in pages)
        if key not in self._formats:
            self._formats[key] = self._formats_of(pages)
        return self._formats[key]

    def _formats_of(self, pages: list[TemplatePage]) -> zxingcpp.BarcodeFormats | None:
        found = [prepared(self.tset, p).code_format for p in pages]
        known = {f for f in found if f is not None}
        if not found or len(known) < len(set(found)):
            return None
        return zxingcpp.BarcodeFormats(sorted(known, key=str))

    def interchangeable(self, style_a: str, style_b: str, page: int) -> bool:
        """Whether two styles print this page alike: the same contests' options at the same places (a back
        holding only the same questions, or left blank), so reading it as either gives the same marks."""
        a, b = self.tset.page_for(style_a, page), self.tset.page_for(style_b, page)
        return a is not None and b is not None and same_targets(a, b)

    def identify_and_register(self, image: np.ndarray) -> tuple[TemplatePage, Registration]:
        """The template page ``image`` shows and its registration; `ReadError` when either fails."""
        tp, reg, _twin = self._identify(image)
        return tp, reg

    def _identify(self, image: np.ndarray) -> tuple[TemplatePage, Registration, bool]:
        """`identify_and_register`, and whether matching left the page between templates printed alike
        (`same_targets`): then the sheet's other side names the style (`tabulate.detect.pair_pages`)."""
        w_in, h_in = paper_of(image.shape, self.papers)  # a set may mix paper lengths by style
        dpi, turned = page_dpi(image.shape, w_in, h_in)  # an export may add a strip below the page
        fine8 = shrink(image, dpi, FINE_DPI)
        half = half_image(fine8)
        quarter = screen_image(half)  # matching's whole-frame page, and the 10 DPI page's first step
        small = prepare(quarter, FINE_DPI / 4, COARSE_DPI, 1.0)  # as from fine8, whose first steps these are
        paper = level(np.ascontiguousarray(fine8[::3, ::3]), 0.75)
        turns = (1, 3) if turned else (0, 2)
        by_code = self._code_first(image, dpi, turns, (w_in, h_in))
        fit = (image, (fine8, half), small, dpi, paper, by_code, turns)
        try:  # the skew the page's print gives, then (rarely) the whole sweep
            tp, reg, k = self._fit(*fit, print_angle(half))
        except ReadError:
            tp, reg, k = self._fit(*fit, None)
        affine_half = reg.affine * (FINE_DPI / 2 / dpi)
        pixels = PagePixels(half, affine_half, levels_table(reg))
        if by_code and by_code[0][1] is tp:
            confirm_code(self.tset, tp, pixels)  # its code, read before the fit, names this page
            return tp, reg, False
        if tp.code is not None:
            text = read_code(image, reg.affine, tp.code, reg.paper, reg.ink, self._code_formats([tp]))
            named = self.tset.page_for_code(text) if text else None
            if named is tp:
                confirm_code(self.tset, tp, pixels)
                return tp, reg, False
            if named is not None:
                reg = self._refit(image, fine8, dpi, named, reg, k, paper)
                confirm_code(self.tset, named, PagePixels(half, reg.affine * (FINE_DPI / 2 / dpi), levels_table(reg)))
                return named, reg, False
        # By matching: the page in its own frame against every blank; the winner must be clear.
        frame = frame_as_blank(quarter, affine_half / 2, w_in, h_in, reg, SCREEN_DPI)
        win, twin = match_page(self.tset, self._match_bases()[0], frame, pixels, fine8, paper)
        reg = reg if win is tp else self._refit(image, fine8, dpi, win, reg, k, paper)
        # No rival blank tells a page from outside the set (another election, a style not imported) from its
        # look-alike: it must print the winner's names (`ownprint`).
        check_own_print(self.tset, win, fine8, reg.affine * (FINE_DPI / dpi))
        return win, reg, twin

    def _fit(self, image, levels, small, dpi, paper, by_code, turns, skew) -> tuple[TemplatePage, Registration, int]:
        """(template, registration, quarter turns) of the first of `FIT_TRIES` candidates that registers:
        the code's page, else the best-correlated templates; coarse skews near ``skew`` (None: sweep)."""
        tried: set[tuple[str, int]] = set()
        failure: ReadError | None = None
        slid: int | None = None  # the quarter turn of a fit that slid off the image (`OffImage`)
        cands = by_code or self._candidates(small, turns, skew)
        bare = [p for p in self.tset.pages if not p.layout.targets]
        if not by_code and bare and bare_as(levels[0], paper, prepared(self.tset, bare[0]).blank):
            # A bare page (a back left blank) correlates with little: the bare templates first, one per turn
            # (they are printed alike; matching then picks among them).
            ranked = sorted(cands, key=lambda x: bool(x[1].layout.targets))
            cands = [x for x in ranked if x[1].layout.targets or x[1] is bare[0]]
        for _q, tp, k in cands:
            key = (tp.key, k if isinstance(k, int) else k.k)
            if len(tried) >= FIT_TRIES:
                break
            if key in tried:
                continue
            tried.add(key)
            c = k if isinstance(k, Coarse) else coarse(prepared(self.tset, tp).small, small, k, self._angles(skew, tp))
            try:
                return tp, self._register(image, levels, small.shape, dpi, tp, c, paper), c.k
            except OffImage as e:  # slid onto a sibling's print: the right template may rank lower
                failure, slid = failure or e, c.k
            except ReadError as e:  # a poor coarse fit (a rough scan): try the next candidate
                failure = failure or e
            if isinstance(k, Coarse):
                # The ranking's shift is the set's mean blank's; the template's own can differ by more
                # than the anchors' search (sheet 1607 of the arrows benchmark: a back page fed upside
                # down, 2 % large, three streaks): fit the template's own blank once before moving on.
                c = coarse(prepared(self.tset, tp).small, small, k.k, self._angles(skew, tp))
                try:
                    return tp, self._register(image, levels, small.shape, dpi, tp, c, paper), c.k
                except OffImage:
                    slid = c.k
                except ReadError:
                    pass
        if slid is not None and not by_code:  # (a page its code names is that page or none)
            found = self._fit_own(image, levels, small, dpi, paper, slid, skew, tried)
            if found is not None:
                return found
        raise failure or ReadError("no_template_match", "the page fits no template page")

    def _fit_own(self, image, levels, small, dpi, paper, k: int, skew, tried) -> tuple | None:
        """The first of `FIT_TRIES` untried templates, ranked by each one's own coarse fit, that registers.

        Used only when a fit slid off the image: the page was put on the set's common frame where a
        sibling style prints the same contests higher or lower (the back of an 8.5 x 19 in ballot, a
        third empty, was placed 3 in low and the right template ranked last of six)."""
        own = [
            (coarse(prepared(self.tset, tp).small, small, k, self._angles(skew, tp)), tp)
            for tp in self.tset.pages
            if (tp.key, k) not in tried
        ]
        for c, tp in sorted(own, key=lambda x: -x[0].rho)[:FIT_TRIES]:
            try:
                return tp, self._register(image, levels, small.shape, dpi, tp, c, paper), c.k
            except ReadError:
                continue
        return None

    def _refit(
        self, image, fine, dpi: float, tp: TemplatePage, reg: Registration, k: int, paper: float
    ) -> Registration:
        """Registration against another template, starting from a fit to a similar one."""
        affine, rms, n = refine(fine, reg.affine, dpi, prepared(self.tset, tp).anchor_stack)
        if not math.isfinite(rms) or rms > MAX_RESIDUAL_IN:
            raise ReadError(
                "registration_residual",
                f"the page does not fit template {tp.key} (RMS residual "
                f"{rms:.3f} in over {n} anchors, limit {MAX_RESIDUAL_IN} in)",
            )
        return enough_anchors(image, fine, affine, rms, n, dpi, k, prepared(self.tset, tp), paper)

    def _register(
        self,
        image: np.ndarray,
        levels: tuple[np.ndarray, np.ndarray],
        small_shape,
        dpi: float,
        tp: TemplatePage,
        c: Coarse,
        paper: float,
    ) -> Registration:
        fine, half = levels
        start = coarse_to_image(c, small_shape, dpi)
        anchors = prepared(self.tset, tp).anchor_stack
        affine, rms, n = fit_anchors(fine, half, start, dpi, anchors, anchors_needed(len(anchors.xy)))
        if not math.isfinite(rms) and not tp.layout.targets and bare_as(fine, paper, prepared(self.tset, tp).blank):
            # A page with nothing to score (a back the vendor left blank) prints too little to anchor a
            # fit, or to fit coarsely; where it lies does not matter, as long as the scan is as bare as
            # the blank (a page of contests taken for it would lose its votes): the page as fed, centred.
            # Its residual is recorded as the limit.
            affine = nominal(image.shape, c.k, dpi, tp.layout.width_in, tp.layout.height_in)
            return place_page(image, affine, dpi, MAX_RESIDUAL_IN, c.k, prepared(self.tset, tp), n, paper)
        if not math.isfinite(rms) or rms > MAX_RESIDUAL_IN:
            raise ReadError(
                "registration_residual",
                f"the page does not fit template {tp.key}: "
                + (
                    f"only {n} of {len(anchors.xy)} printed anchors found"
                    if not math.isfinite(rms)
                    else f"RMS residual {rms:.3f} in over {n} anchors (limit {MAX_RESIDUAL_IN} in)"
                ),
            )
        return enough_anchors(image, fine, affine, rms, n, dpi, c.k, prepared(self.tset, tp), paper)

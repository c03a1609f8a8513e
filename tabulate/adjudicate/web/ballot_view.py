"""What the review page shows for one ballot: contests, options, images, reasons, the form's values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ...core.votes import AdjudicationReason
from ...election import Election
from ...rules import OptionMark
from ..entries import Entry
from ..explain import option_label, reason_sentence
from ..hand_entry import DAMAGED
from ..layouts import style_layout
from ..source import ReviewSheet, SourceError
from . import forms


@dataclass
class OptionRow:
    contest_id: str
    option_id: str
    label: str
    party: str
    kind: str
    machine: OptionMark | None
    value: str | None  # "1", "0", or None: the person must choose
    flagged: bool
    marking_crop: str | None = None
    write_in_crop: str | None = None
    name: str = ""
    sticker: bool = False

    @property
    def field(self) -> str:
        return forms.mark_field(self.contest_id, self.option_id)

    @property
    def name_field(self) -> str:
        return forms.name_field(self.contest_id, self.option_id)

    @property
    def sticker_field(self) -> str:
        return forms.sticker_field(self.contest_id, self.option_id)

    @property
    def machine_words(self) -> str:
        if self.machine is None:
            return "not read"
        words = {"marked": "marked", "marginal": "light mark", "unmarked": "blank"}[self.machine.scan]
        if self.machine.score is not None:
            words += f" · {self.machine.score:.2f}"
        if self.machine.hand and self.machine.hand != self.machine.scan:
            words += f" · by hand: {self.machine.hand}"
        if self.machine.write_in_ink:
            words += " · name written"
        return words


@dataclass
class ContestView:
    id: str
    title: str
    vote_for: int
    flagged: bool
    reasons: list[str]
    zoom: str | None
    options: list[OptionRow]


@dataclass
class BallotView:
    sheet: ReviewSheet
    contests: list[ContestView]
    reasons: list[str]
    pages: list[tuple[int, str, str]]  # (side, label, url)
    manual: bool
    style_id: str
    precinct_id: str | None
    styles: list[tuple[str, str]] = field(default_factory=list)

    @property
    def flagged(self) -> list[ContestView]:
        return [c for c in self.contests if c.flagged]

    @property
    def others(self) -> list[ContestView]:
        return [c for c in self.contests if not c.flagged]


def _value(
    form: Mapping[str, Any] | None, previous: Entry | None, contest_id: str, option_id: str, default: str | None
) -> str | None:
    if form is not None:
        v = form.get(forms.mark_field(contest_id, option_id))
        return v if v in ("0", "1") else None
    if previous is not None:
        return "1" if option_id in previous.marked.get(contest_id, ()) else "0"
    return default


def build(
    election: Election,
    sheet: ReviewSheet,
    *,
    manual: bool,
    style_id: str | None,
    precinct_id: str | None,
    previous: Entry | None = None,
    form: Mapping[str, Any] | None = None,
) -> BallotView:
    """The review page's model. ``style_id`` is the sheet's, or (entered by hand) the one the team chose."""
    sid = sheet.sheet_id
    queued = set(election.adjudication.reasons)
    reasons = [r for r in sheet.reasons if r.code in queued]
    pages = [
        (p.side, {1: "Front", 2: "Back"}.get(p.layout_page, f"Image {p.side}"), f"/img/{sid}/{p.side}.png")
        for p in sheet.pages_in_order
    ]
    ballot_reasons = [reason_sentence(election, r) for r in reasons if r.contest_id is None]
    if manual:
        detail = "; ".join(r.detail or r.code for r in sheet.reasons)
        ballot_reasons = [reason_sentence(election, AdjudicationReason(DAMAGED, None, None, detail))]
    styles = [(s.id, f"Style {s.id} ({', '.join(s.precincts)})") for s in election.ballot_styles]
    if not style_id:
        return BallotView(sheet, [], ballot_reasons, pages, manual, "", precinct_id, styles)
    try:
        layout = style_layout(election, sheet, style_id)
    except SourceError:
        layout = ()  # read with a template set the store does not hold: the pages without zooms or crops
    page_of = {cid: p.page for p in layout for cid, _ in p.contest_boxes}
    target_page = {(t.contest_id, t.option_id): p.page for p in layout for t in p.targets}
    by_contest: dict[str, list] = {}
    named: set[tuple[str, str]] = set()
    for r in reasons:
        if r.contest_id:
            by_contest.setdefault(r.contest_id, []).append(r)
            if r.option_id and r.code in ("marginal_mark", "scan_hand_disagreement", "unmarked_write_in"):
                named.add((r.contest_id, r.option_id))
    show_all = manual or any(r.contest_id is None for r in reasons)
    abbreviation = {p.id: p.abbreviation for p in election.parties}
    contests = []
    for contest in election.style_contests(style_id):
        machine_marks = sheet.marks.marks.get(contest.id, {}) if (sheet.marks and not manual) else {}
        side = sheet.side_for(page_of.get(contest.id, 0))
        can_crop = side is not None and side.affine is not None
        rows = []
        for option in contest.options:
            machine = machine_marks.get(option.id) if not manual else None
            flagged = (contest.id, option.id) in named
            default = (
                None
                if flagged or (machine is not None and machine.scan == "marginal")
                else ("1" if machine is not None and machine.scan == "marked" else "0")
            )
            reading = previous.reading(contest.id, option.id) if previous else None
            name = (
                form.get(forms.name_field(contest.id, option.id), "")
                if form is not None
                else (reading.name if reading else "")
            )
            tside = sheet.side_for(target_page.get((contest.id, option.id), 0))
            crop_base = (
                f"/img/{sid}/{tside.side}/area/{contest.id}/{option.id}"
                if tside is not None and tside.affine is not None
                else None
            )
            ink = option.kind == "write_in" and (machine is None or machine.write_in_ink or machine.scan != "unmarked")
            rows.append(
                OptionRow(
                    contest.id,
                    option.id,
                    option_label(contest, option.id),
                    abbreviation.get(option.party, "") if option.kind == "candidate" else "",
                    option.kind,
                    machine,
                    _value(form, previous, contest.id, option.id, default),
                    flagged,
                    marking_crop=f"{crop_base}/marking.png"
                    if crop_base
                    and (flagged or (machine is not None and machine.scan != "unmarked"))
                    and option.kind != "write_in"
                    else None,
                    write_in_crop=f"{crop_base}/write_in.png" if crop_base and ink else None,
                    name=str(name)[:120],
                    sticker=(
                        form.get(forms.sticker_field(contest.id, option.id)) == "1"
                        if form is not None
                        else bool(reading and reading.sticker)
                    ),
                )
            )
        reasons = [
            reason_sentence(
                election,
                r,
                machine_marks.get(r.option_id) if r.option_id else None,
                sheet.targets.get((r.contest_id, r.option_id)) if r.option_id else None,
            )
            for r in by_contest.get(contest.id, [])
        ]
        contests.append(
            ContestView(
                contest.id,
                contest.title,
                contest.vote_for,
                show_all or contest.id in by_contest,
                reasons,
                f"/img/{sid}/{side.side}/contest/{contest.id}.png" if can_crop else None,
                rows,
            )
        )
    return BallotView(sheet, contests, ballot_reasons, pages, manual, style_id, precinct_id, styles)

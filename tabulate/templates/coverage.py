"""Does a template set hold every page of every ballot style of the election? (``templates_incomplete``)

31 KAR 6:030 Section 2(1)(a): a vote on a scan voting system is the choice made by "filling in the oval
or box or connecting the arrow next to the candidate's name or the question choice"; 31 KAR 2:020
Section 1(4): a "ballot style" is "the ballot unique to a specific precinct listing the federal, state,
county, and local candidates, offices, and ballot questions for which a voter in the precinct may cast a
vote". A page of a style the set lacks carries a code that names no page of the set, so matching decides,
and with no rival blank its nearest look-alike wins: its marks are counted against the names printed on
another style's ballot (`benchmarks/foreign_pages.py`). The set is tied to an election, and the election
says which contests each style holds, so a missing style or page is known before a single page is read.

A style is one sheet (`tabulate.templates.twosheets`): its page 1 holds the start of its contests, page 2
the end. A page is missing when a contest of its style is on no imported page of that style; a back the
vendor left without targets holds no contest, so a set without it is complete. Derived from the set and
the election each time (nothing is recorded in the set: its digest stays what it was).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..election.model import Election
from .model import TemplateError, TemplateSet


class TemplatesIncomplete(TemplateError):
    """A set that lacks pages of the election's styles, used to read without ``--allow-missing-styles``."""

    code = "templates_incomplete"


@dataclass(frozen=True)
class MissingPage:
    """A style's page the set lacks: ``page`` None when the set holds no page of the style at all."""

    style_id: str
    page: int | None
    contests: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"style {self.style_id} " + ("(no page imported)" if self.page is None else f"page {self.page}")

    def __str__(self) -> str:
        if self.page is None:
            return f"{self.where}, its {len(self.contests)} contests"
        return f"{self.where}: contests {', '.join(self.contests)}"


def missing_pages(election: Election, tset: TemplateSet) -> tuple[MissingPage, ...]:
    """Every style's page whose contests no imported page of that style holds, in the election's order."""
    out = []
    for style in election.ballot_styles:
        pages = [p for p in tset.pages if p.style_id == style.id]
        held = {t.contest_id for p in pages for t in p.layout.targets}
        lost = tuple(c.id for c in election.style_contests(style.id) if c.id not in held)
        if not lost:
            continue
        imported = {p.page for p in pages}
        # One page imported: the lost contests are on the other side (a front starts the list, a back ends it).
        page = None if not imported else next((n for n in (1, 2) if n not in imported), max(imported))
        out.append(MissingPage(style.id, page, lost))
    return tuple(out)


def summary(missing: tuple[MissingPage, ...]) -> str:
    """The missing pages in one line: ``style 2 (no page imported); style 3 page 2``."""
    return "; ".join(m.where for m in missing)


def check_complete(election: Election, tset: TemplateSet, *, allow_missing: bool = False) -> tuple[MissingPage, ...]:
    """`TemplatesIncomplete` (one line naming the missing styles' pages) unless the set holds every contest of
    every style, or ``allow_missing``; returns the missing pages (empty when the set is complete)."""
    missing = missing_pages(election, tset)
    if missing and not allow_missing:
        raise TemplatesIncomplete(
            f"the template set lacks {summary(missing)} of the election: a page of a style the set lacks would be "
            "read as the nearest imported style, its marks counted for another ballot's names; import a blank of "
            "every page (`tabulate templates import`), or pass --allow-missing-styles if no ballot of those styles "
            "is in the pile"
        )
    return missing

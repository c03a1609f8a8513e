"""Ballots printed on two sheets (four pages) a voter: what a template set can and cannot hold.

A long election's ballot may run over two sheets. The election format describes a ballot style as one
sheet (a front holding the start of its contests, a back the end: `tabulate.templates.importer`), and the
store keeps one record a sheet, counted as one ballot. A style of four pages has no place there, so its
middle pages are refused on import with what the clerk can do instead: write each sheet in the election
as a style of its own (the same precinct). Then every vote is read and counted against the right contests;
what changes is that "ballots cast" counts sheets, not voters (a county reconciles by sheets per voter).
"""

from __future__ import annotations

from ..election.model import Election
from .model import TemplateError


def refuse_second_sheet(election: Election, name: str, sizes: list[int]) -> None:
    """`TemplateError` when a page's contests are a run from the middle of a style's list (two or more of them,
    neither its first nor its last): a page of a ballot printed on two sheets (four pages) a voter.

    The election format describes a style as one sheet: a front from the start of its contests, a back from
    the end; a sheet is one record in the store and one ballot in the counts. So a second sheet is refused
    with what to do: each sheet written in the election as a style of its own. (Then every vote counts, and
    "ballots cast" counts sheets.)"""
    if len(sizes) < 2:
        return
    for style in election.ballot_styles:
        want = [len(c.options) for c in election.style_contests(style.id)]
        for i in range(1, len(want) - len(sizes)):
            if want[i : i + len(sizes)] == sizes:
                raise TemplateError(
                    f"{name}: its {len(sizes)} contests' target counts are those of contests {i + 1}-{i + len(sizes)} "
                    f"of style {style.id}'s {len(want)}, from the middle of its list: if it is a page of a ballot on "
                    "two sheets (four pages), a style cannot describe it (a style is one sheet: a front from the "
                    "start of its contests, a back from the end): write each sheet in the election as a style of "
                    "its own and import again; otherwise set its style and page in the map file"
                )


def one_off(election: Election, sizes: list[int]) -> bool:
    """Whether the page's contests' target counts are some style's front or back with one contest's off
    (a target missed or a drawing taken for one): then that contest is named, not a second sheet guessed."""
    for style in election.ballot_styles:
        want = [len(c.options) for c in election.style_contests(style.id)]
        for part in (want[: len(sizes)], want[-len(sizes) :]):
            if len(part) == len(sizes) and sum(a != b for a, b in zip(sizes, part)) <= 1:
                return True
    return False

"""A vendor ballot as printed: its pages (drawing items, targets, contest areas, the code) and the simulator's view.

Written independently of `tabulate.election.layout` (see `tabulate.ballots.vendor.design`);
only the data types the voter and scanner simulator read (`TargetLayout`,
`PageLayout`, `BallotLayout`) are shared, so that the simulator can mark
these ballots exactly as it marks ours.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.errors import TabulateError
from ...election.geometry import Rect
from ...election.layout import BallotLayout, PageLayout, TargetLayout
from .design import DESIGNS, Design


class VendorLayoutError(TabulateError, ValueError):
    """A style that does not fit the vendor design's two pages."""

    code = "vendor_layout"


@dataclass(frozen=True)
class VendorPage:
    """One printed page: drawing items, targets, contest areas, the code's place and free margins."""

    page: int
    width_in: float
    height_in: float
    items: tuple[tuple, ...]
    targets: tuple[TargetLayout, ...]
    contest_areas: tuple[tuple[str, Rect], ...]
    code_rect: Rect
    code_text: str
    margins: tuple[Rect, ...]

    def page_layout(self, style_id: str) -> PageLayout:
        """The simulator's view of the page (targets, contest areas, the code's place)."""
        return PageLayout(
            style_id, self.page, self.width_in, self.height_in, (), self.code_rect, self.targets, self.contest_areas
        )


@dataclass(frozen=True)
class VendorBallot:
    family: str
    style_id: str
    style_number: int
    pages: tuple[VendorPage, VendorPage]

    @property
    def design(self) -> Design:
        return DESIGNS[self.family]

    def ballot_layout(self) -> BallotLayout:
        return BallotLayout(self.style_id, tuple(p.page_layout(self.style_id) for p in self.pages))

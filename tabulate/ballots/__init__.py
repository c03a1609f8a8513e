"""Ballots on paper: render blank ballots, and simulate voters marking them and scanners scanning them.

Rendering (`render_page`, `render_sheet`, `png_bytes`, `pdf_bytes`) draws a
style's layout. The simulator (`simulate_sheet`, `simulate_sheets`,
`write_samples`) produces scanned-looking voted sheets with their truth: what
each voter meant, every mark drawn, and the readings 31 KAR 6:030 expects
(`MARK_KINDS`). See docs/ballots.md and docs/simulator.md.
"""

from ..election.render import pdf_bytes, png_bytes, render_page, render_sheet, write_pdf
from ._ink import Pen
from .mark_kinds import MARK_KINDS, MarkKind
from .marks import draw_mark
from .plan import SheetPlan, TargetMark, forced_plan, make_pen, plan_sheet
from .samples import encode_page, load_truth, sheet_file_name, write_samples
from .scanner import SCAN_PROFILES, ScanParams, ScanProfile, SheetScan, draw_scan, scan_page
from .simulate import SimulatedSheet, blank_sheet, simulate_sheet, simulate_sheets
from .truth import TRUTH_FORMAT
from .voters import POPULATIONS, Population, VoterIntent, draw_voter, intended_votes

__all__ = [
    "MARK_KINDS",
    "POPULATIONS",
    "SCAN_PROFILES",
    "TRUTH_FORMAT",
    "MarkKind",
    "Pen",
    "Population",
    "ScanParams",
    "ScanProfile",
    "SheetPlan",
    "SheetScan",
    "SimulatedSheet",
    "TargetMark",
    "VoterIntent",
    "blank_sheet",
    "draw_mark",
    "draw_scan",
    "draw_voter",
    "encode_page",
    "forced_plan",
    "intended_votes",
    "load_truth",
    "make_pen",
    "pdf_bytes",
    "plan_sheet",
    "png_bytes",
    "render_page",
    "render_sheet",
    "scan_page",
    "sheet_file_name",
    "simulate_sheet",
    "simulate_sheets",
    "write_pdf",
    "write_samples",
]

"""Vendor-style test ballots (issue #11): three foreign designs, printed, voted and scanned with their truth.

Shares no code with our own layout or renderer; see `tabulate.ballots.vendor.design`.
"""

from .design import DESIGNS, FAMILIES, Design, vendor_code_text
from .draw import print_page, timing_positions
from .pages import VendorBallot, VendorLayoutError, VendorPage
from .place import vendor_layout
from .sheets import PaperEffects, blank_pages, simulate_vendor_sheet

__all__ = [
    "DESIGNS",
    "FAMILIES",
    "Design",
    "PaperEffects",
    "VendorBallot",
    "VendorLayoutError",
    "VendorPage",
    "blank_pages",
    "print_page",
    "simulate_vendor_sheet",
    "timing_positions",
    "vendor_code_text",
    "vendor_layout",
]

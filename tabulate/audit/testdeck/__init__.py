"""The accuracy-test deck of 31 KAR 2:020: design it, draw it, count it, and print the verdict.

`design_style_deck` chooses the ballots and their tally sheet (Section 3),
`make_deck` draws them as a printable PDF and scan-like images, `scan_deck`
counts them in a test store of their own and compares every number (Section
4(2)(b)), and `tabulate.audit.testdeck.forms` prints the tally sheet, the
printout, the checklist and the SBE 16-like certificate.
"""

from .check import DeckResult, Line, ReadSheet, StyleResult, compare_style, findings, swapped_pairs
from .design import DeckBallot, StyleDeck, TallySheet, design_style_deck, expected_tally
from .draw import DECK_FORMAT, DeckError, Misprint, load_manifest, make_deck, misprinted_layout
from .scan import TEST_STORE, scan_deck

__all__ = [
    "DECK_FORMAT",
    "TEST_STORE",
    "DeckBallot",
    "DeckError",
    "DeckResult",
    "Line",
    "Misprint",
    "ReadSheet",
    "StyleDeck",
    "StyleResult",
    "TallySheet",
    "compare_style",
    "design_style_deck",
    "expected_tally",
    "findings",
    "load_manifest",
    "make_deck",
    "misprinted_layout",
    "scan_deck",
    "swapped_pairs",
]

"""One vocabulary: reason codes in plain words, and one reference for a ballot.

The CLI (`tabulate status`, `tabulate explain`), the review web app and the
printed forms all name a reason and a ballot through this module, so a clerk
reading the terminal and a reviewer reading the screen see the same words
for the same thing. The machine codes stay in JSON output and exports,
beside these words, so a script can still match them.

A ballot is referred to by where a person finds the paper: its batch and its
position in that batch, "batch · position" (`ballot_reference`). The store's
sheet id and the content hash are shown beside it, never instead of it.
"""

from __future__ import annotations

from typing import Iterable, Mapping

#: Reasons a person must look at a ballot (the rules' `AdjudicationReason` codes and the store's
#: "enter by hand"), in the words the review screens use.
REVIEW_REASON_WORDS: dict[str, str] = {
    "overvote": "Overvote",
    "marked_write_in": "Write-in",
    "unmarked_write_in": "Name written, target not marked",
    "marginal_mark": "Marginal mark",
    "scan_hand_disagreement": "Scanner and hand reading differ",
    "blank_ballot": "Blank ballot",
    "undervote": "Undervote",
    "damaged_ballot": "Damaged: enter by hand",
}

#: Why a sheet was set aside (the reader's and the store's codes), in plain words.
SET_ASIDE_WORDS: dict[str, str] = {
    "duplicate_sheet": "Same images as a sheet already scanned",
    "page_already_scanned": "A page already scanned on another sheet",
    "unreadable_file": "Image file cannot be read",
    "empty_file": "Image file is empty",
    "corrupt_image": "Image is corrupt",
    "not_an_image": "Not an image file",
    "pdf_encrypted": "PDF is encrypted",
    "pdf_page_empty": "PDF page is empty",
    "pdf_not_a_scan": "PDF is a printed ballot, not a scan",
    "unsupported_image": "Image format not supported",
    "image_too_large": "Image too large",
    "resolution_out_of_range": "Scan resolution out of range",
    "no_registration_marks": "No registration marks found",
    "registration_marks_missing": "Registration marks missing",
    "registration_residual": "Page could not be registered",
    "fit_few_anchors": "Page placed from too few printed anchors",
    "template_code_mismatch": "Page code names another ballot page than its print",
    "template_foreign_print": "Page does not print the names of the ballot it resembles",
    "orientation_unknown": "Page orientation unknown",
    "scale_out_of_range": "Page scale out of range",
    "skew_out_of_range": "Page too skewed",
    "style_code_unreadable": "Style code unreadable",
    "not_a_ballot_code": "Code is not a ballot code",
    "wrong_election": "Ballot of another election",
    "unknown_style": "Unknown ballot style",
    "unknown_precinct": "Unknown precinct",
    "precinct_not_in_style": "Precinct not on this ballot style",
    "layout_mismatch": "Page does not match its layout",
    "page_rejected": "A page was set aside",
    "pages_disagree": "Front and back disagree",
    "sides_scale_differ": "Front and back placed at different scales",
    "missing_page": "A page is missing",
    "missing_back_page": "Back page missing",
    "missing_front_page": "Front page missing",
    "too_many_pages": "Too many pages for one sheet",
    "marks_not_in_election": "Marks do not fit the election",
    "internal_error": "Reader error (report it)",
}

#: Every code's words.
REASON_WORDS: Mapping[str, str] = {**SET_ASIDE_WORDS, **REVIEW_REASON_WORDS}

#: Page flag in the evidence: the reader took the page for a scanner's error diffusion (halftone) and read
#: it from the grey its dots stand for (`tabulate.detect.dither`). Here, not there, because `tabulate
#: status` and the end of a scan count it (`tabulate.central.diffused`) without loading the reader.
ERROR_DIFFUSED_FLAG = "error_diffused"

#: How summaries label a count of sheets by reason: one sheet can be in several rows.
SEVERAL_REASONS_NOTE = "sheets (a sheet may have several reasons)"

#: The separator of a ballot reference.
REFERENCE_SEPARATOR = " · "


def reason_words(code: str) -> str:
    """The plain words for a reason code; an unknown code is shown with spaces, never hidden."""
    return REASON_WORDS.get(code) or code.replace("_", " ").capitalize()


def reason_counts_words(counts: Iterable[tuple[str, int]]) -> str:
    """``[("marked_write_in", 3), ...]`` as ``"Write-in 3, ..."`` (in the order given)."""
    return ", ".join(f"{reason_words(code)} {n}" for code, n in counts)


def ballot_reference(batch: str, position: int) -> str:
    """Where a person finds the paper: ``"<batch> · <position>"`` (position from 1 in the batch as fed)."""
    return f"{batch}{REFERENCE_SEPARATOR}{int(position)}"


def parse_reference(text: str) -> tuple[str, int] | None:
    """``"abs-1 · 7"`` (or ``"abs-1·7"``, ``"abs-1:7"``, ``"abs-1 #7"``) as ``("abs-1", 7)``; None if not one.

    The batch name is everything before the last separator, so batch names
    with spaces or dashes still parse.
    """
    for sep in ("·", "#", ":"):
        batch, found, pos = text.rpartition(sep)
        if found and batch.strip() and pos.strip().isdigit():
            return batch.strip(), int(pos.strip())
    return None


__all__ = [
    "REASON_WORDS",
    "REFERENCE_SEPARATOR",
    "REVIEW_REASON_WORDS",
    "SET_ASIDE_WORDS",
    "SEVERAL_REASONS_NOTE",
    "ballot_reference",
    "parse_reference",
    "reason_counts_words",
    "reason_words",
]

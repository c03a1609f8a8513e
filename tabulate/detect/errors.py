"""Why a page or a sheet could not be read: a stable machine code and a plain reason.

Reading never raises on bad input; each stage raises `ReadError` and the
reader turns it into a rejected `PageReading` / `SheetReading` that carries
``reason_code`` (one of `REASON_CODES`) and ``reason`` (a sentence for people).
"""

from __future__ import annotations

from ..core.errors import TabulateError

#: Every code a rejected page or sheet can carry, with what it means.
REASON_CODES: dict[str, str] = {
    "unreadable_file": "the file could not be opened or read",
    "empty_file": "the file is empty",
    "not_an_image": "the bytes are not a PNG, JPEG or TIFF image, nor a PDF",
    "pdf_encrypted": "the PDF is encrypted: it cannot be opened without a password",
    "pdf_page_empty": "a PDF page has no scanned image and no content at all",
    "pdf_not_a_scan": "a PDF page is vector drawing and text, no scan: a printer's PDF (use `tabulate templates import`)",
    "unsupported_image": "an image format or layout we do not decode",
    "corrupt_image": "the image is truncated or damaged",
    "image_too_large": "the header declares more pixels than a ballot page can have (decompression-bomb guard)",
    "resolution_out_of_range": "the image size implies a resolution outside the supported range",
    "no_registration_marks": "no registration mark in any corner: a blank sheet, or not a ballot",
    "registration_marks_missing": "some registration marks were not found",
    "orientation_unknown": "the large top-left registration mark could not be told from the others",
    "registration_residual": "the marks do not fit one page transform (a misread mark or a distorted page)",
    "scale_out_of_range": "the printed page is too small or large for the paper (a reduced or enlarged copy)",
    "skew_out_of_range": "the page is skewed more than the reader allows",
    "style_code_unreadable": "the style code (QR symbol) could not be read",
    "not_a_ballot_code": "the QR symbol is not one of our style codes",
    "wrong_election": "the page belongs to another election",
    "unknown_style": "the style code names a ballot style this election does not have",
    "unknown_precinct": "the style code names a precinct this election does not have",
    "precinct_not_in_style": "the style code's precinct is not served by its ballot style",
    "no_template_match": "the page matches no page of the template set (and carries no code it maps)",
    "template_ambiguous": "the page matches two template pages about equally and carries no code to tell them apart",
    "template_code_mismatch": "the page's code names one template page but its print is another's (a mis-coded ballot)",
    "template_foreign_print": "the page matched a template page but does not print its names (another election or style)",
    "fit_few_anchors": "the page's fit to its template keeps too few of the printed anchors to place its targets",
    "two_pages_in_image": "the image holds two pages side by side (a front and a back): one image a side is needed",
    "internal_error": "a bug in the reader (reported, never a reading)",
    # sheet level
    "missing_page": "a sheet needs both sides and only one was given",
    "too_many_pages": "more than two pages were given for one sheet",
    "page_rejected": "a page of the sheet was rejected",
    "pages_disagree": "the two pages are not the front and back of one ballot",
    "sides_scale_differ": "the two sides of the sheet were placed at different scales (one side's fit is wrong)",
}


class ReadError(TabulateError):
    """A page or sheet cannot be read; ``code`` is one of `REASON_CODES`."""

    code = "read"

    def __init__(self, code: str, reason: str):
        if code not in REASON_CODES:
            raise ValueError(f"unknown reason code {code!r}")
        super().__init__(reason)
        self.code = code
        self.reason = reason

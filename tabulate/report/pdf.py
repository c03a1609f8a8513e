"""Printable forms (PDF) for boards and auditors, on fpdf2.

One small base for every paper form the project prints: the hand-to-eye audit's
tally sheets and findings (31 KAR 4:230), the accuracy-test printout and
certificate (31 KAR 2:020), the recount forms (31 KAR 4:220). Forms are
reproducible: the same content gives the same bytes, because the creation date
is fixed by ``SOURCE_DATE_EPOCH`` when set (the reproducible-builds convention)
and fonts are embedded as deterministic subsets.

Why fpdf2: pure Python (no compiled part to install), maintained, tables and
Unicode TrueType fonts built in, and byte-reproducible output once the
creation date is fixed. Text uses the DejaVu fonts matplotlib ships, so names
such as "José Núñez" print as written (the PDF core fonts are Latin-1 only).
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Sequence

__all__ = ["Form", "form_date", "write_form"]

_FONT = "DejaVu"


def _font_dir() -> Path:
    import matplotlib

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf"


def form_date() -> datetime:
    """Now, or the instant ``SOURCE_DATE_EPOCH`` names, in UTC."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return datetime.fromtimestamp(int(epoch), timezone.utc)
    return datetime.now(timezone.utc)


def _fpdf():
    from fpdf import FPDF

    return FPDF


class Form:
    """A letter-size form: a title block, text, tables and signature lines.

    Units are inches. Use `write_form` to save it. ``subtitle`` names the
    election and the clause the form serves, printed under the title on
    every page together with a page number.
    """

    def __init__(self, title: str, *, subtitle: str = "", landscape: bool = False):
        FPDF = _fpdf()
        title_text, subtitle_text = title, subtitle

        class _Doc(FPDF):  # header and footer on every page
            def header(self) -> None:
                self.set_font(_FONT, "B", 13)
                self.cell(0, 0.25, title_text, new_x="LMARGIN", new_y="NEXT")
                if subtitle_text:
                    self.set_font(_FONT, "", 9)
                    self.multi_cell(0, 0.18, subtitle_text, new_x="LMARGIN", new_y="NEXT")
                self.ln(0.1)

            def footer(self) -> None:
                self.set_y(-0.5)
                self.set_font(_FONT, "", 8)
                self.cell(0, 0.2, f"{title_text} — page {self.page_no()} of {{nb}}", align="C")

        self.pdf = _Doc(orientation="L" if landscape else "P", unit="in", format="letter")
        self.pdf.set_margins(0.6, 0.6, 0.6)
        self.pdf.set_auto_page_break(True, margin=0.7)
        self.pdf.set_creation_date(form_date())
        self.pdf.set_title(title)
        fonts = _font_dir()
        self.pdf.add_font(_FONT, "", str(fonts / "DejaVuSans.ttf"))
        self.pdf.add_font(_FONT, "B", str(fonts / "DejaVuSans-Bold.ttf"))
        self.pdf.set_font(_FONT, "", 10)
        self.pdf.add_page()

    # -- text -------------------------------------------------------------
    def heading(self, text: str) -> None:
        self.pdf.ln(0.08)
        self.pdf.set_font(_FONT, "B", 11)
        self.pdf.multi_cell(0, 0.22, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.set_font(_FONT, "", 10)

    def paragraph(self, text: str, *, size: float = 10) -> None:
        self.pdf.set_font(_FONT, "", size)
        self.pdf.multi_cell(0, size / 60, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.set_font(_FONT, "", 10)

    def fields(self, pairs: Iterable[tuple[str, str]]) -> None:
        """``label: value`` lines, the label in bold."""
        for label, value in pairs:
            self.pdf.set_font(_FONT, "B", 10)
            self.pdf.cell(1.9, 0.2, f"{label}:")
            self.pdf.set_font(_FONT, "", 10)
            self.pdf.multi_cell(0, 0.2, value or "", new_x="LMARGIN", new_y="NEXT")

    # -- tables -----------------------------------------------------------
    def table(
        self,
        header: Sequence[str],
        rows: Iterable[Sequence[object]],
        *,
        widths: Sequence[float] | None = None,
        size: float = 9,
        align: str = "LEFT",
    ) -> None:
        """A ruled table; ``header`` is repeated on each page it spans."""
        self.pdf.set_font(_FONT, "", size)
        kwargs = {"col_widths": tuple(widths)} if widths else {}
        with self.pdf.table(text_align=align, line_height=size / 55, **kwargs) as table:
            head = table.row()
            for cell in header:
                head.cell(str(cell))
            for values in rows:
                row = table.row()
                for value in values:
                    row.cell("" if value is None else str(value))
        self.pdf.set_font(_FONT, "", 10)
        self.pdf.ln(0.1)

    # -- paper work -------------------------------------------------------
    def blank_lines(self, labels: Iterable[str], *, width: float = 3.2) -> None:
        """``label ____________`` lines for a person to write on."""
        for label in labels:
            self.pdf.cell(1.9, 0.32, f"{label}:")
            x, y = self.pdf.get_x(), self.pdf.get_y() + 0.26
            self.pdf.line(x, y, x + width, y)
            self.pdf.ln(0.34)

    def checkboxes(self, items: Iterable[tuple[str, bool]]) -> None:
        """A box per item, ticked where the value is True, for a person to confirm or complete."""
        for text, ticked in items:
            x, y = self.pdf.l_margin, self.pdf.get_y() + 0.04
            self.pdf.rect(x, y, 0.14, 0.14)
            if ticked:
                self.pdf.line(x + 0.02, y + 0.08, x + 0.06, y + 0.12)
                self.pdf.line(x + 0.06, y + 0.12, x + 0.13, y + 0.01)
            self.pdf.set_x(x + 0.25)
            self.pdf.multi_cell(0, 0.2, text, new_x="LMARGIN", new_y="NEXT")
            self.pdf.ln(0.04)

    def signature_block(self, roles: Iterable[str]) -> None:
        """For each role a printed-name, party, signature and date line."""
        self.heading("Signatures")
        for role in roles:
            self.pdf.set_font(_FONT, "B", 9)
            self.pdf.cell(0, 0.22, role, new_x="LMARGIN", new_y="NEXT")
            self.pdf.set_font(_FONT, "", 9)
            y = self.pdf.get_y() + 0.3
            x0 = self.pdf.l_margin
            for label, width in (("Printed name", 2.2), ("Party", 0.9), ("Signature", 2.2), ("Date", 1.0)):
                self.pdf.line(x0, y, x0 + width - 0.1, y)
                self.pdf.text(x0, y + 0.13, label)
                x0 += width
            self.pdf.set_y(y + 0.25)
        self.pdf.set_font(_FONT, "", 10)

    def new_page(self) -> None:
        self.pdf.add_page()

    def keep_together(self, height_in: float) -> None:
        """Start a new page unless ``height_in`` inches still fit above the bottom margin."""
        if self.pdf.get_y() + height_in > self.pdf.h - self.pdf.b_margin:
            self.pdf.add_page()

    def to_bytes(self) -> bytes:
        return bytes(self.pdf.output())


def write_form(form: Form, path: str | os.PathLike) -> Path:
    """Save ``form`` to ``path`` (its folder is created) and return the path."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(form.to_bytes())
    return out

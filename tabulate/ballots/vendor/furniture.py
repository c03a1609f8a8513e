"""What a vendor prints on a page besides its contests: headings, instructions with pictures of marked
and unmarked targets, and the free margins where voters write."""

from __future__ import annotations

from ...election.geometry import Rect
from ...election.model import Election
from .contest import INFO_PT, TITLE_PT
from .design import Design


def page_furniture(d: Design, page: int, election: Election) -> tuple[list, list[Rect]]:
    """Headings, instructions (with pictures of marked and unmarked targets) and free margins."""
    w, h = d.paper_in
    items: list = [
        ("text_c", w / 2, 0.32, "OFFICIAL BALLOT" + (" (CONTINUED)" if page == 2 else ""), 13.0, True),
        ("text_c", w / 2, 0.58, f"{election.title}  -  {election.date}", 9.0, False),
    ]
    margins: list[Rect] = [Rect(0.5, h - 0.75, 3.0, 0.35)] if d.family != "boxes" else [Rect(2.5, h - 0.55, 3.2, 0.35)]
    if d.family == "boxes" and page == 1 and d.instructions:
        x = 0.35
        items.append(("frame", x - 0.05, 1.35, 1.85, 4.4, 0.012))
        y = 1.45
        for line in [
            "INSTRUCTIONS",
            "To vote, completely fill",
            "the oval to the LEFT of",
            "your choice with a black",
            "or blue pen.",
            "",
            "Correct mark:",
        ]:
            items.append(
                ("text", x + 0.05, y, line, INFO_PT if line != "INSTRUCTIONS" else TITLE_PT, line == "INSTRUCTIONS")
            )
            y += 0.16
        items.append(("disc", x + 0.6, y + 0.02, 0.24, 0.14))
        y += 0.32
        items.append(("text", x + 0.05, y, "Incorrect marks:", INFO_PT, False))
        y += 0.2
        for k in range(3):
            ox = x + 0.1 + 0.45 * k
            items.append(("oval", ox, y, 0.24, 0.14, 0.018))
            if k == 0:
                items.append(("line", ox + 0.02, y + 0.01, ox + 0.22, y + 0.13, 0.02))
                items.append(("line", ox + 0.22, y + 0.01, ox + 0.02, y + 0.13, 0.02))
            elif k == 1:
                items.append(("line", ox + 0.04, y + 0.07, ox + 0.1, y + 0.13, 0.02))
                items.append(("line", ox + 0.1, y + 0.13, ox + 0.24, y - 0.04, 0.02))
            else:
                items.append(("disc", ox + 0.09, y + 0.05, 0.06, 0.05))
        y += 0.4
        for line in [
            "To vote for a person whose",
            "name is not printed, write",
            "the name on the write-in",
            "line and fill the oval.",
        ]:
            items.append(("text", x + 0.05, y, line, INFO_PT, False))
            y += 0.16
        margins.append(Rect(0.3, 6.2, 1.7, 1.2))
    elif d.family == "arrows" and page == 1:
        items.append(
            ("text", 0.6, 0.9, "To vote, connect the arrow pointing to your choice, like this:", INFO_PT, False)
        )
        items.append(("rect", 4.35, 0.95, 0.16, 0.044))
        items.append(("rect", 4.51, 0.95, 0.26, 0.044))
        items.append(
            (
                "poly",
                ((4.77, 0.95), (4.83, 0.95), (4.83, 0.9), (4.93, 0.972), (4.83, 1.04), (4.83, 0.994), (4.77, 0.994)),
            )
        )
    elif d.family == "timing":
        items.append(("text_c", w / 2, 0.8, "Fill the oval completely. Use a black pen.", INFO_PT, False))
    return items, margins

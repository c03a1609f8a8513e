"""A template set: pages imported from blank ballots, in the layout JSON our own ballots use.

A set is a folder: ``templates.json`` (this module's `TemplateSet.to_dict`),
and per page ``<style>-p<page>.png`` (the blank, as imported) and
``<style>-p<page>-proof.png`` (every target outlined and labelled, for a
person to check before the election). Each page's ``layout`` is exactly
`tabulate.election.layout.PageLayout.to_dict`, so detection, rules and the
review app's crops read it as they read our own.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping

from ..core.canonical import canonical_json
from ..core.errors import TabulateError
from ..election.geometry import Rect
from ..election.layout import PageLayout, TargetLayout

FORMAT = "tabulate-templates-1"
MANIFEST = "templates.json"
#: The journal entry `tabulate scan --templates` writes once per set: the set's document, so the store
#: itself says which layout each page was read with (the review app's crops, explain, annotations).
JOURNAL_KIND = "template_set"


class TemplateError(TabulateError):
    """A template set that cannot be made or used; one line a person can act on."""

    code = "template"


@dataclass(frozen=True)
class PageCode:
    """The code a page carries: ``kind`` "qr" or "timing", the text read on the blank, where it is printed."""

    kind: str
    text: str
    rect: Rect
    #: Timing codes: the centres (inches) of the code row's mark positions, in order.
    marks: tuple[tuple[float, float], ...] = ()
    mark_size: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class TemplatePage:
    """One imported page: its layout, its blank image file, its code and its blank targets' scores."""

    layout: PageLayout
    dpi: float
    blank_file: str
    source: str
    code: PageCode | None = None
    blank_scores: tuple[float, ...] = ()
    precinct_id: str | None = None
    #: A sample ballot's grey watermark left out of the blank (square inches; `tabulate.templates.watermark`).
    watermark_in2: float = 0.0
    #: The blank's tinted bands before any watermark was left out: boxes ``(x0, y0, x1, y1)`` in page inches
    #: (`tabulate.templates.tintstreaks`: a streak only a shaded row shows on a bitonal scan).
    tint_bands_in: tuple[tuple[float, float, float, float], ...] = ()

    @property
    def key(self) -> str:
        return f"{self.layout.style_id}-p{self.layout.page}"

    @property
    def style_id(self) -> str:
        return self.layout.style_id

    @property
    def page(self) -> int:
        return self.layout.page


@dataclass(frozen=True)
class TemplateSet:
    """Every imported page of an election's ballot styles, and the thresholds to read them with."""

    election_hash: str
    pages: tuple[TemplatePage, ...]
    marginal: float
    definite: float
    blank_level: float
    #: (regular expression, style id, page): a code whose text matches names that page.
    code_patterns: tuple[tuple[str, str, int], ...] = ()
    folder: str = field(default="", compare=False)

    def page_for(self, style_id: str, page: int) -> TemplatePage | None:
        for p in self.pages:
            if p.style_id == style_id and p.page == page:
                return p
        return None

    def page_for_code(self, text: str) -> TemplatePage | None:
        """The page a code's text names: the blank's own code, else the first matching pattern."""
        for p in self.pages:
            if p.code is not None and p.code.text == text:
                return p
        for pattern, style, page in self.code_patterns:
            if re.fullmatch(pattern, text):
                return self.page_for(style, page)
        return None

    @cached_property
    def digest(self) -> str:
        """SHA-256 of the set's canonical JSON (`to_dict`): the name a page reading records it by."""
        return hashlib.sha256(canonical_json(self.to_dict())).hexdigest()

    def journal_data(self) -> dict:
        """What the store's journal keeps of the set (`JOURNAL_KIND`): its document and digest, no images,
        and the folder it was read from (where a recount finds its blanks again; not part of the digest)."""
        return {
            "sha256": self.digest,
            "folder": str(Path(self.folder).resolve()) if self.folder else None,
            "set": self.to_dict(),
        }

    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "election_hash": self.election_hash,
            "thresholds": {"marginal": self.marginal, "definite": self.definite},
            "blank_level": round(self.blank_level, 4),
            "code_patterns": [list(c) for c in self.code_patterns],
            "pages": [_page_dict(p) for p in self.pages],
        }

    def save(self, folder: Path) -> None:
        (Path(folder) / MANIFEST).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")


def _page_dict(p: TemplatePage) -> dict:
    return {
        "style_id": p.style_id,
        "page": p.page,
        "precinct_id": p.precinct_id,
        "dpi": p.dpi,
        "blank_file": p.blank_file,
        "source": p.source,
        "code": None if p.code is None else asdict(p.code),
        "blank_scores": [round(s, 4) for s in p.blank_scores],
        "layout": p.layout.to_dict(),
        # Only when there was one: sets imported before keep their bytes, and so their digest.
        **({"watermark_in2": round(p.watermark_in2, 2)} if p.watermark_in2 else {}),
        **({"tint_bands": [list(b) for b in p.tint_bands_in]} if p.tint_bands_in else {}),
    }


def _rect(v) -> Rect | None:
    if v is None:
        return None
    return Rect(**v) if isinstance(v, dict) else Rect(*v)


def _need(v) -> Rect:
    r = _rect(v)
    if r is None:
        raise TemplateError("a template page's layout lacks a rectangle it needs")
    return r


def page_layout_from_dict(d: dict) -> PageLayout:
    """The inverse of `PageLayout.to_dict` for what detection reads (targets, contest areas, the code's place)."""
    targets = tuple(
        TargetLayout(
            t["contest_id"],
            t["option_id"],
            t["kind"],
            t["shape"],
            _need(t["bounds"]),
            _need(t["marking_area"]),
            _rect(t.get("write_in_area")),
        )
        for t in d["targets"]
    )
    boxes = tuple((str(c), _need(r)) for c, r in d["contest_boxes"])
    return PageLayout(
        d["style_id"],
        int(d["page"]),
        float(d["width_in"]),
        float(d["height_in"]),
        (),
        _need(d["style_code"]),
        targets,
        boxes,
    )


def load_set(folder: str | Path) -> TemplateSet:
    """Read a template set folder; `TemplateError` (one line) when it is not one."""
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.is_file():
        raise TemplateError(f"{folder}: not a template set (no {MANIFEST}; make one with `tabulate templates import`)")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise TemplateError(f"{path}: cannot read the template set: {e}") from None
    return set_from_dict(doc, str(folder), where=str(path))


def set_from_journal(data: Mapping[str, Any]) -> TemplateSet:
    """The set a `JOURNAL_KIND` entry recorded (no folder: its images stay where they were imported)."""
    tset = set_from_dict(data["set"], "", where="the store's journal")
    if tset.digest != data.get("sha256"):
        raise TemplateError(f"the template set recorded as {data.get('sha256')} in the journal has another digest")
    return tset


def set_from_dict(doc: Mapping[str, Any], folder: str = "", *, where: str = "template set") -> TemplateSet:
    """The inverse of `TemplateSet.to_dict`; `TemplateError` when ``doc`` is another format."""
    if doc.get("format") != FORMAT:
        raise TemplateError(f"{where}: format {doc.get('format')!r}, expected {FORMAT!r}")
    pages = []
    for p in doc["pages"]:
        code = p.get("code")
        if code is not None:
            code = PageCode(
                code["kind"],
                code["text"],
                _need(code["rect"]),
                tuple(tuple(m) for m in code.get("marks", ())),
                tuple(code.get("mark_size", (0, 0))),
            )
        pages.append(
            TemplatePage(
                page_layout_from_dict(p["layout"]),
                float(p["dpi"]),
                p["blank_file"],
                p.get("source", ""),
                code,
                tuple(p.get("blank_scores", ())),
                p.get("precinct_id"),
                float(p.get("watermark_in2", 0.0)),
                tuple((b[0], b[1], b[2], b[3]) for b in p.get("tint_bands", ())),
            )
        )
    th = doc["thresholds"]
    return TemplateSet(
        doc["election_hash"],
        tuple(pages),
        float(th["marginal"]),
        float(th["definite"]),
        float(doc.get("blank_level", 0.0)),
        tuple(tuple(c) for c in doc.get("code_patterns", ())),
        folder,
    )

"""Template sets: read ballots we did not print, from templates built from their blank pages (issue #11).

``import_templates`` turns blank pages (scans or PDF pages) and the election
into a template set: the same layout JSON our own ballots use, plus a proof
picture per page. `TemplateReader` reads scanned pages with a set: it
identifies each page (by its code, or by matching), registers it from what
the template prints, and scores it with the native kernel. It plugs into
`tabulate.detect.read` as a ``reader`` (`tabulate.detect.read.PageReader`);
detection itself never imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from .bound import TemplatesWrongElection, check_election
    from .coverage import MissingPage, TemplatesIncomplete, check_complete, missing_pages
    from .importer import PageMap, import_templates, read_map
    from .model import JOURNAL_KIND, TemplateError, TemplatePage, TemplateSet, load_set
    from .placement import blank_scores
    from .read import TemplateReader
    from .recorded import recorded_sets, style_pages

#: Each submodule's public names, loaded on first use (`lazy_loader`, PEP 562).
_WHERE = {
    "bound": ["TemplatesWrongElection", "check_election"],
    "coverage": ["MissingPage", "TemplatesIncomplete", "check_complete", "missing_pages"],
    "importer": ["PageMap", "import_templates", "read_map"],
    "model": ["JOURNAL_KIND", "TemplateError", "TemplatePage", "TemplateSet", "load_set"],
    "placement": ["blank_scores"],
    "read": ["TemplateReader"],
    "recorded": ["recorded_sets", "style_pages"],
}
__getattr__, __dir__, _ = lazy_loader.attach(__name__, submod_attrs=_WHERE)

__all__ = [
    "JOURNAL_KIND",
    "MissingPage",
    "PageMap",
    "TemplateError",
    "TemplatePage",
    "TemplateReader",
    "TemplateSet",
    "TemplatesIncomplete",
    "TemplatesWrongElection",
    "blank_scores",
    "check_complete",
    "check_election",
    "import_templates",
    "load_set",
    "missing_pages",
    "read_map",
    "recorded_sets",
    "style_pages",
]

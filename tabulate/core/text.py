"""Text a person can read back: no invisible, control or direction-changing characters.

A write-in name typed as ``\\u202eeornoM lA`` (a right-to-left override)
shows the board and the other party "Al Monroe" while the store holds
something else; a zero-width space makes two names that look the same
compare different; a control character (a bell, a NUL) reaches a clerk's
terminal or spreadsheet. Unicode's general categories name these: ``Cc``
(control), ``Cf`` (format: bidi overrides and isolates, zero-width
characters, the BOM), ``Co`` (private use), ``Cs`` (surrogates) and ``Cn``
(unassigned). `visible_text` removes them (tab and line breaks stay: a
note may span lines) and composes the rest (NFC), so what is stored is what
was seen. Letters of every script stay; an emoji sequence joined by a
zero-width joiner falls apart into its parts, which is the price.
"""

from __future__ import annotations

import unicodedata

#: The general categories of characters a reader cannot see or that reorder the text around them.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
_KEPT = frozenset("\t\n\r")


def visible_text(text: str) -> str:
    """``text`` in NFC without control, format, private-use, surrogate or unassigned characters."""
    if text.isprintable() or not text:
        return unicodedata.normalize("NFC", text)
    kept = "".join(c for c in text if c in _KEPT or unicodedata.category(c) not in INVISIBLE_CATEGORIES)
    return unicodedata.normalize("NFC", kept)

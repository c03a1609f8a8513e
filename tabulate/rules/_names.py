"""Names as a person reads them: normalised, split into given names and surname, compared with slack.

Pure string functions used by the write-in rules (`._write_in`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: Generational suffixes, dropped before the surname is taken ("Robert Caldwell Jr.").
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
#: Particles that belong to the surname after them ("Martin Van Buren" -> "van buren").
_PARTICLES = frozenset({"da", "de", "del", "della", "der", "di", "du", "la", "le", "st", "van", "von"})
_APOSTROPHES = re.compile(r"['\u2019\u2018`\u00b4]")
_HYPHENS = re.compile(r"[-\u2010-\u2015]")
_NON_WORD = re.compile(r"[^0-9a-z]+")


def normalise(text: str) -> str:
    """Lower case, accents and punctuation gone, single spaces, "Surname, Given" turned round.

    Apostrophes and hyphens join their neighbours ("O'Brien" -> "obrien",
    "Smith-Jones" -> "smithjones") so a surname stays one word; every other
    mark (periods, commas, quotes) becomes a space.
    """
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    parts = [p.strip() for p in text.split(",")]
    # "Foster, Jenna" is "Jenna Foster"; "Caldwell, Jr." is not turned round.
    if len(parts) == 2 and parts[0] and parts[1] and _words(parts[1]) and not set(_words(parts[1])) <= _SUFFIXES:
        text = f"{parts[1]} {parts[0]}"
    return " ".join(_words(text))


def _words(text: str) -> list[str]:
    text = _HYPHENS.sub("", _APOSTROPHES.sub("", text))
    return [w for w in _NON_WORD.sub(" ", text).split() if w]


@dataclass(frozen=True)
class PersonName:
    """A normalised name: ``given`` names (first, middle, initials) and the ``surname``."""

    given: tuple[str, ...]
    surname: str

    @property
    def full(self) -> str:
        return " ".join(self.given + (self.surname,))

    @property
    def initials(self) -> str:
        return "".join(w[0] for w in self.given) + self.surname[:1]


def split_name(text: str) -> PersonName:
    """Split a name (normalised here) into given names and surname: the last word, with its particles."""
    words = normalise(text).split()
    while len(words) > 1 and words[-1] in _SUFFIXES:
        words.pop()
    if not words:
        return PersonName((), "")
    cut = len(words) - 1
    while cut > 1 and words[cut - 1] in _PARTICLES:
        cut -= 1
    return PersonName(tuple(words[:cut]), " ".join(words[cut:]))


def edit_distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours.

    References
    ----------
    F. J. Damerau, "A technique for computer detection and correction of
    spelling errors", Communications of the ACM 7(3), 1964: about 80 % of
    misspellings are one such slip.
    """
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def misspelling_allowance(filed: str) -> int:
    """How many slips still make a "minor misspelling" of a filed word (31 KAR 6:030 Section 4(4)).

    None for words of three letters or fewer (one slip turns "Orr" into "Ord"
    or "Ann" into "Jan": another name, not a misspelling); one for four to
    seven letters, the single slip Damerau found behind most misspellings; two
    from eight letters on ("Lindqvist" written "Lindquest"). The candidate must
    still be the only one within reach, or a person decides.
    """
    n = len(filed.replace(" ", ""))
    return 0 if n <= 3 else 1 if n <= 7 else 2


def close(written: str, filed: str) -> bool:
    """Whether ``written`` is ``filed`` or a minor misspelling of it."""
    return written == filed or edit_distance(written, filed) <= misspelling_allowance(filed)

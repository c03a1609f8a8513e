"""User names and party affiliations that cannot be spoofed by spelling.

Issue 10: two reviewers of one party formed a team by spelling the party
differently ("Republican", "REP" with a zero-width space, full-width "ＲＥＰ"),
and look-alike user names (Cyrillic letters, a right-to-left override) were
accepted and shown identical to real ones. 31 KAR 4:220 Section 7(1) asks
for "individuals registered of differing political party affiliations", so
the party is one of the election's party ids, and a name is plain text a
person can read back.

* `normal_name`: NFKC, then a safe set (ASCII letters and digits, space,
  ``. _ ' -``), starting with a letter or digit, at most 64 characters.
* `skeleton`: a name folded the way eyes confuse it (case, ``0/o``,
  ``1/l/i``, ``rn/m``, ``vv/w``, separators): two names with one skeleton
  are refused as look-alikes.
* `party_key` / `election_party`: NFKC, format characters removed, case
  folded; matched to an election party by id, abbreviation or name.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

from ..core.errors import TabulateError

SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._'-]{0,63}$")
_CONFUSED = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"), ("|", "l"), ("5", "s"))


class NameRefused(TabulateError, ValueError):
    """A user name or party that is refused; the message says why."""

    code = "name_refused"


def normal_name(name: str) -> str:
    """The NFKC form of a user name, or `NameRefused` if it leaves the safe character set."""
    text = unicodedata.normalize("NFKC", name).strip()
    if not SAFE_NAME.match(text):
        raise NameRefused(
            "a user name is 1 to 64 characters: letters A-Z, digits, spaces and . _ ' - "
            "(starting with a letter or digit)"
        )
    return text


def skeleton(name: str) -> str:
    """What a name looks like to a hurried eye: two names with the same skeleton are look-alikes."""
    text = re.sub(r"[ ._'-]", "", unicodedata.normalize("NFKC", name).casefold())
    for a, b in _CONFUSED:
        text = text.replace(a, b)
    return text


def party_key(party: str) -> str:
    """A party as compared: NFKC, format characters (zero-width, bidi overrides) removed, case folded."""
    text = unicodedata.normalize("NFKC", party)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.casefold().split())


def election_party(party: str, parties: Iterable) -> str:
    """The election's party id that ``party`` names (by id, abbreviation or name), or `NameRefused`."""
    key = party_key(party)
    parties = list(parties)
    for p in parties:
        name = party_key(p.name)
        if key in {party_key(p.id), party_key(p.abbreviation), name, name.removesuffix(" party")}:
            return p.id
    raise NameRefused(
        f"party {party!r} is not one of the election's parties: " + ", ".join(f"{p.id} ({p.name})" for p in parties)
    )

"""Names voters write on write-in lines: right, nearly right, and wrong.

31 KAR 6:030 Section 4 and KRS 117.265 decide which count: a declared
write-in candidate's name or filed variation, the surname alone, a minor
misspelling where the candidate is clear; not a first name or nickname alone,
not a name already on the ballot (§4(2)), not a person who did not file.
The simulator writes every kind, and says which it wrote (``how``).
"""

from __future__ import annotations

import numpy as np

from ..election.model import Contest, Election

#: How a written name relates to the contest's candidates, and how often voters write each.
WRITE_IN_HOWS: tuple[tuple[str, float], ...] = (
    ("declared", 0.35),  # a declared candidate's full name
    ("variation", 0.15),  # a name variation filed on the declaration (KRS 117.265(2))
    ("surname", 0.10),  # the declared candidate's surname alone
    ("misspelled", 0.15),  # a declared candidate's name with a slip of the pen
    ("first_name", 0.05),  # the declared candidate's first name alone (not a valid vote)
    ("on_ballot", 0.08),  # a candidate already printed on the ballot (§4(2): not counted)
    ("random", 0.12),  # someone who did not file
)

_FIRST = (
    "James",
    "Mary",
    "Robert",
    "Patricia",
    "John",
    "Jennifer",
    "Michael",
    "Linda",
    "David",
    "Barbara",
    "William",
    "Susan",
    "Richard",
    "Jessica",
    "Joseph",
    "Sarah",
    "Thomas",
    "Karen",
    "Charles",
    "Nancy",
    "Dolly",
    "Wendell",
    "Loretta",
    "Earl",
    "Mabel",
    "Otis",
    "Ruby",
    "Virgil",
    "Opal",
    "Homer",
)
_LAST = (
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Miller",
    "Davis",
    "Wilson",
    "Anderson",
    "Taylor",
    "Thomas",
    "Moore",
    "Martin",
    "Jackson",
    "Thompson",
    "White",
    "Harris",
    "Clark",
    "Lewis",
    "Walker",
    "Combs",
    "Sizemore",
    "Caudill",
    "Napier",
    "Slone",
    "Hatfield",
    "Mattingly",
    "Hounshell",
    "Begley",
    "Noble",
)
#: Joke and protest write-ins every county sees.
_PROTEST = ("Mickey Mouse", "None of the Above", "Daniel Boone", "Anybody Else", "My Dog Rufus")


def misspell(name: str, rng: np.random.Generator) -> str:
    """A slip of the pen in the surname: a swapped, dropped, doubled or changed letter."""
    parts = name.split()
    word = parts[-1]
    if len(word) < 4:
        return name
    i = int(rng.integers(1, len(word) - 1))
    op = int(rng.integers(4))
    if op == 0:
        word = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    elif op == 1:
        word = word[:i] + word[i + 1 :]
    elif op == 2:
        word = word[:i] + word[i] + word[i:]
    else:
        vowels = "aeiou"
        j = next((k for k in range(i, len(word)) if word[k] in vowels), None)
        if j is None:
            word = word[:i] + word[i + 1 :]
        else:
            word = word[:j] + vowels[(vowels.index(word[j]) + 1 + int(rng.integers(4))) % 5] + word[j + 1 :]
    return " ".join(parts[:-1] + [word])


def random_name(rng: np.random.Generator) -> str:
    if rng.random() < 0.1:
        return _PROTEST[int(rng.integers(len(_PROTEST)))]
    return f"{_FIRST[int(rng.integers(len(_FIRST)))]} {_LAST[int(rng.integers(len(_LAST)))]}"


def write_in_name(contest: Contest, election: Election, rng: np.random.Generator) -> tuple[str, str, str | None]:
    """A name a voter writes in ``contest``: (name, how, declared candidate id or None).

    ``candidate`` is the declared candidate the voter means, whether or not
    the name as written would be accepted.
    """
    declared = contest.declared_write_ins
    hows = [(h, w) for h, w in WRITE_IN_HOWS if declared or h in ("on_ballot", "random")]
    names, weights = zip(*hows)
    w = np.array(weights)
    how = names[int(rng.choice(len(names), p=w / w.sum()))]
    if how == "on_ballot":
        printed = [c.name for c in contest.candidates]
        return printed[int(rng.integers(len(printed)))], how, None
    if how == "random":
        return random_name(rng), how, None
    cand = declared[int(rng.integers(len(declared)))]
    full = cand.name
    if cand.running_mate and rng.random() < 0.2:
        full = f"{cand.name.split()[-1]} / {cand.running_mate.split()[-1]}"
    if how == "declared":
        name = full
    elif how == "variation":
        name = cand.variations[int(rng.integers(len(cand.variations)))] if cand.variations else full
        how = "variation" if cand.variations else "declared"
    elif how == "surname":
        name = cand.name.split()[-1]
    elif how == "first_name":
        name = cand.name.split()[0]
    else:
        name = misspell(cand.name, rng)
    if rng.random() < 0.15:
        name = name.lower()
    return name, how, cand.id

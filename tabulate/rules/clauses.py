"""The clauses the rules cite, each with its text as published.

Every `ContestVotes.clauses` entry and every `WriteInDecision.clause` is one of
these keys, so a report can print the words of the law beside a vote.
"""

from __future__ import annotations

from typing import Iterable

OVERVOTE = "31 KAR 6:030 §1(6)"
WRITE_IN_VOTE = "31 KAR 6:030 §1(9)"
SCANNER_VOTE = "31 KAR 6:030 §2(1)(a)"
SCANNER_WRITE_IN = "31 KAR 6:030 §2(1)(b)"
CANDIDATE_PLUS_WRITE_IN = "31 KAR 6:030 §2(2)(b)"
ELIGIBLE_ONLY = "31 KAR 6:030 §4(1)"
ALREADY_ON_BALLOT = "31 KAR 6:030 §4(2)"
STICKER = "31 KAR 6:030 §4(3)"
MISSPELLING = "31 KAR 6:030 §4(4)"
SURNAME = "31 KAR 6:030 §4(5)"
FIRST_NAME = "31 KAR 6:030 §4(6)"
INITIALS = "31 KAR 6:030 §4(7)"
NICKNAME = "31 KAR 6:030 §4(8)"
OTHER_NAME = "31 KAR 6:030 §4(9)"
GOVERNOR_SLATE = "31 KAR 6:030 §4(10)"
PRESIDENT_SLATE = "31 KAR 6:030 §4(11)"
STRAIGHT_PARTY = "31 KAR 6:030 §5(1)"
STRAIGHT_PARTY_NOT_OVERVOTE = "31 KAR 6:030 §5(2)"
FWAB = "31 KAR 5:011 §2"

#: The text of each clause (31 KAR 6:030 and 5:011, as published).
CLAUSE_TEXT: dict[str, str] = {
    OVERVOTE: '"Overvote" means a voter has made more than the permitted number of selections in a single race '
    "except when a voter casts a vote using a straight party option and votes for an opposing candidate "
    "in a particular race.",
    WRITE_IN_VOTE: '"Write-in vote" means a vote on a ballot on which the voter writes, types, or uses an approved '
    "accessibility device to record, the surname of an eligible write-in candidate in the space "
    "reserved on the ballot for write-in votes and, on a paper ballot, properly marks the oval or box "
    "or connects the arrow according to the directions provided to the voter.",
    SCANNER_VOTE: "Filling in the oval or box or connecting the arrow next to the candidate's name or the question "
    "choice",
    SCANNER_WRITE_IN: "Writing in the name of an eligible candidate in the designated write-in space and filling in "
    "the oval or box or connecting the arrow next to the designated write-in space.",
    CANDIDATE_PLUS_WRITE_IN: "If a voter designates a vote for a named candidate on the ballot and also writes in the "
    "name of a different person, these actions shall be considered an overvote, with neither "
    "candidate receiving credit for the vote, except as provided in Section 5 of this "
    "administrative regulation.",
    ELIGIBLE_ONLY: "Only votes cast for eligible write-in candidates as provided in KRS 117.265 shall be considered "
    "valid and counted.",
    ALREADY_ON_BALLOT: "A write-in vote for a candidate whose name already appears on the ballot as a candidate shall "
    "not be counted as a vote as provided in KRS 117.265.",
    STICKER: "The use of stickers, labels, rubber stamps, or other similar devices shall not be counted as write-in "
    "votes.",
    MISSPELLING: "Any minor misspelling of the name of a candidate shall be disregarded in determining the validity "
    "of a write-in vote as long as the intended candidate may be clearly determined.",
    SURNAME: "Writing in only the surname of an eligible candidate shall constitute a valid vote, unless there is "
    "more than one (1) filed candidate with the same surname for that office. If there is more than one (1) "
    "filed candidate with the same surname for that office, writing in only the last name or surname shall "
    "not constitute a vote.",
    FIRST_NAME: "Writing in only the first name of an eligible candidate shall not constitute a valid vote.",
    INITIALS: "Writing in only the initials of a candidate shall not constitute a vote.",
    NICKNAME: "Writing in only the nickname of an eligible candidate shall not constitute a valid vote.",
    OTHER_NAME: "If the voter writes in any other name along with the surname of an eligible write-in candidate, the "
    "other name written by the voter shall comply with the variations of names listed by the candidate "
    "on the declaration of intent to be a write-in candidate filed with the Secretary of State or county "
    "clerk, pursuant to KRS 117.265(2), to constitute a valid vote.",
    GOVERNOR_SLATE: "Writing in the surname of the candidate for Governor or the surname of the candidate for "
    "Lieutenant Governor shall be sufficient to cast a write-in vote for the slate.",
    PRESIDENT_SLATE: "Writing in the surname of the candidate for President or the surname of the candidate for Vice "
    "President shall be sufficient to cast a write-in vote for the slate.",
    STRAIGHT_PARTY: "For all voting systems and types of ballots, if a voter designates a choice to vote a straight "
    "political party ticket and also designates a vote for an opposing candidate whose name appears "
    "on the ballot or writes in the name of an eligible write-in candidate in a specific race, the "
    "vote shall be counted for the opposing candidate or the eligible write-in candidate for that "
    "specific race and the remaining votes on the ballot shall be counted for the straight political "
    "party.",
    STRAIGHT_PARTY_NOT_OVERVOTE: "Straight party voting shall not be considered an overvote if cast in a manner "
    "consistent with subsection (1) of this section.",
    FWAB: "The requirements of 31 KAR 6:030, Uniform Definition of a Vote, Section 3(2)(a) and Section 4(1), (2), "
    "and (9), shall be suspended for the purposes of this administrative regulation.",
}


def cite(clauses: Iterable[str]) -> str:
    """Clauses as one citation, the regulation named once: "31 KAR 6:030 §5(1), §5(2); 31 KAR 5:011 §2"."""
    groups: dict[str, list[str]] = {}
    for clause in clauses:
        reg, _, section = clause.partition(" §")
        groups.setdefault(reg, []).append("§" + section)
    return "; ".join(f"{reg} {', '.join(sections)}" for reg, sections in groups.items())


__all__ = [
    "ALREADY_ON_BALLOT",
    "CANDIDATE_PLUS_WRITE_IN",
    "CLAUSE_TEXT",
    "ELIGIBLE_ONLY",
    "FIRST_NAME",
    "FWAB",
    "GOVERNOR_SLATE",
    "INITIALS",
    "MISSPELLING",
    "NICKNAME",
    "OTHER_NAME",
    "OVERVOTE",
    "PRESIDENT_SLATE",
    "SCANNER_VOTE",
    "SCANNER_WRITE_IN",
    "STICKER",
    "STRAIGHT_PARTY",
    "STRAIGHT_PARTY_NOT_OVERVOTE",
    "SURNAME",
    "WRITE_IN_VOTE",
    "cite",
]

"""The vote types a Kentucky county reports separately, and their labels.

31 KAR 2:010 Section 1(11) and 4:031 Section 3(2) name the absentee and
election-day counts; provisional ballots are counted once approved (6:020).
"""

from __future__ import annotations

#: Vote types a Kentucky county reports separately (31 KAR 2:010 Section 1(11),
#: 4:031) plus provisional ballots once approved (6:020).
VOTE_TYPES: tuple[str, ...] = (
    "mail_in_absentee",
    "excused_in_person_absentee",
    "no_excuse_in_person_absentee",
    "election_day",
    "provisional",
)

#: Human labels of the vote types, in `VOTE_TYPES` order.
VOTE_TYPE_LABELS: dict[str, str] = {
    "mail_in_absentee": "Mail-in absentee",
    "excused_in_person_absentee": "Excused in-person absentee",
    "no_excuse_in_person_absentee": "No-excuse in-person absentee",
    "election_day": "Election day",
    "provisional": "Provisional",
}

#: The vote types of 31 KAR 2:010 Section 1(11) and 4:031 Section 3(2):
#: every vote type but provisional.
REPORTED_VOTE_TYPES: tuple[str, ...] = tuple(v for v in VOTE_TYPES if v != "provisional")

#: The three absentee vote types, summed as "absentee" under 31 KAR 4:031 Section 3(3).
ABSENTEE_VOTE_TYPES: tuple[str, ...] = (
    "mail_in_absentee",
    "excused_in_person_absentee",
    "no_excuse_in_person_absentee",
)

"""How the audit forms name things: contests, options with their party, the overvote and undervote lines."""

from __future__ import annotations

from ..election.model import STRAIGHT_PARTY_CONTEST_ID, Election

#: Pseudo option ids for the overvote and undervote lines of a comparison or form.
OVERVOTES, UNDERVOTES = "(overvotes)", "(undervotes)"


def contest_title(election: Election, contest_id: str) -> str:
    """A contest's title as certified ("Straight Party" for the straight-party option)."""
    return election.contest(contest_id).title


def option_label(election: Election, contest_id: str, option_id: str) -> str:
    """An option as printed on the ballot: ``"Name (REP)"``, ``"Name and Mate"``, ``"YES"``, ``"Write-in 1"``."""
    if option_id == OVERVOTES:
        return "Overvotes"
    if option_id == UNDERVOTES:
        return "Undervotes"
    if contest_id == STRAIGHT_PARTY_CONTEST_ID:
        try:
            return election.party(option_id).name
        except KeyError:
            return option_id
    contest = election.contest(contest_id)
    for o in contest.options:
        if o.id == option_id:
            if o.kind == "write_in":
                return f"Write-in {option_id.rsplit('-', 1)[-1]}" if contest.write_ins > 1 else "Write-in"
            name = f"{o.label} and {o.running_mate}" if o.running_mate else o.label
            if o.party:
                try:
                    name += f" ({election.party(o.party).abbreviation})"
                except KeyError:
                    name += f" ({o.party})"
            return name
    return option_id

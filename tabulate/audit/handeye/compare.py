"""The matched hand tally against the machine: per option, hand, machine, tape, and the differences.

31 KAR 4:230 Section 2(2): "Determinations and findings made by a County Board
of Elections following the hand-to-eye recount shall be recorded on a Form SBE
91". The comparison is what the board's findings rest on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ...election import Contest


@dataclass(frozen=True)
class ComparisonRow:
    option_id: str
    label: str
    hand: int
    machine: int
    tape: int | None

    @property
    def difference(self) -> int:
        """Hand minus the store's machine count."""
        return self.hand - self.machine

    @property
    def tape_difference(self) -> int | None:
        """Hand minus the tally tape (None without a tape)."""
        return None if self.tape is None else self.hand - self.tape

    def to_dict(self) -> dict:
        return {
            "option_id": self.option_id,
            "label": self.label,
            "hand": self.hand,
            "machine": self.machine,
            "difference": self.difference,
            "tape": self.tape,
            "tape_difference": self.tape_difference,
        }


def option_label(contest: Contest, option_id: str) -> str:
    for o in contest.options:
        if o.id == option_id:
            if o.kind == "write_in":
                return "Write-in" + (f" {option_id.rsplit('-', 1)[-1]}" if contest.write_ins > 1 else "")
            name = f"{o.label} and {o.running_mate}" if o.running_mate else o.label
            return f"{name} ({o.party})" if o.party else name
    return option_id


def compare(
    contest: Contest, hand: Mapping[str, int], machine: Mapping[str, int], tape: Mapping[str, int] | None = None
) -> tuple[ComparisonRow, ...]:
    """One row per option of the race, in ballot order."""
    return tuple(
        ComparisonRow(
            o.id,
            option_label(contest, o.id),
            int(hand.get(o.id, 0)),
            int(machine.get(o.id, 0)),
            None if tape is None else int(tape.get(o.id, 0)),
        )
        for o in contest.options
    )

"""`tabulate samples make`'s choices are the simulator's own names, without importing the simulator to list them."""

from __future__ import annotations

from tabulate.ballots.scanner import SCAN_PROFILES
from tabulate.ballots.voters import POPULATIONS
from tabulate.commands.samples import POPULATION_NAMES, SCAN_PROFILE_NAMES


def test_the_populations_offered_are_the_simulators():
    assert tuple(POPULATIONS) == POPULATION_NAMES


def test_the_scan_profiles_offered_are_the_simulators():
    assert tuple(SCAN_PROFILES) == SCAN_PROFILE_NAMES

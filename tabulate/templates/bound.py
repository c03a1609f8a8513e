"""Is a template set the one imported for this election? (``templates_wrong_election``)

31 KAR 2:010 Section 2(4): the county clerk "shall compare the prepared ballots ... with the ballot template
and the certification ... to ascertain that all federal, state, county, and local candidates, offices and
ballot questions shall be the same as listed on the certification and shall appear in the correct
positions". A template set is that comparison made once, at import: each target of each blank is given
an option of the election it was imported with, and the set records that election's hash
(`TemplateSet.election_hash`). Read with another election's definition, a target's mark would be counted
for whatever option the other definition names by the same ids - an edited candidate list, a contest
added, a different election entirely.

So a set is used only with the very election it was imported for: its recorded hash must equal the
election's own hash (`tabulate.election.model.election_hash`, the one a store binds in
``Store.bind_election``). Nothing short of equality is accepted: which edits of a definition "cannot change
a reading" is not something the hash can tell, and importing the blanks again takes a minute. There is no
override.
"""

from __future__ import annotations

from ..election.model import Election
from .model import TemplateError, TemplateSet


class TemplatesWrongElection(TemplateError):
    """A set imported for another election definition, used to read this one."""

    code = "templates_wrong_election"


def check_election(election: Election, tset: TemplateSet) -> None:
    """`TemplatesWrongElection` (one line naming both hashes' first 12 digits) unless ``tset`` was
    imported for ``election``."""
    if tset.election_hash != election.hash:
        raise TemplatesWrongElection(
            f"the template set was imported for election {tset.election_hash[:12]}, not for "
            f"{election.title!r} ({election.hash_prefix}): its targets name another definition's options; "
            "import the blanks again with this election (`tabulate templates import ... --election E`)"
        )

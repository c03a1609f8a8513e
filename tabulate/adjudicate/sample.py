"""Kept for older imports: the review sample now lives with the command that makes it.

`tabulate.commands.review_sample` builds the sample store of ``tabulate review
sample``. This shim is the one import from adjudication up to the commands,
and the import contracts name it as an exception (pyproject.toml); delete it
once nothing imports ``tabulate.adjudicate.sample``.
"""

from ..commands.review_sample import SAMPLE_ELECTION, SCRIPT, SampleBallot, build_sample_store, sample_outcomes

__all__ = ["SAMPLE_ELECTION", "SCRIPT", "SampleBallot", "build_sample_store", "sample_outcomes"]

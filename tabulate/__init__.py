"""ballot-tabulate: read scanned Kentucky paper ballots, apply 31 KAR 6:030, count and explain every vote."""

__version__ = "0.1.0"

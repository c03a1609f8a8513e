"""One module per command group of the ``tabulate`` command; `tabulate.cli` only dispatches.

Each module has ``register(subparsers)``, which adds its parsers and sets
``func`` on them. Commands raise `UsageError` (or any `TabulateError`) for a
mistake the user can fix.
"""

from .errors import UsageError

__all__ = ["UsageError"]

"""/v1/matches: ``routes`` (parse, call the ledger service, render) and ``schemas``."""

from .routes import blp

__all__ = ["blp"]

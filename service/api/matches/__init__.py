"""/v1/matches: ``routes`` (parse, call the ledger service, render) and ``schemas``."""

from .routes import blp
from .schemas import PageArgs

__all__ = ["PageArgs", "blp"]

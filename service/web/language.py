"""The language a request is answered in: the client's ``Accept-Language`` preference
among the languages the message catalogs speak (``service/i18n``)."""

from __future__ import annotations

from flask import request

from ..i18n import SOURCE, best_language


def language() -> str:
    """The language the client prefers among those the catalogs speak (``Accept-Language``);
    English outside a request."""
    try:
        header = request.environ.get("HTTP_ACCEPT_LANGUAGE")
    except RuntimeError:  # outside a request
        return SOURCE
    return best_language(header)

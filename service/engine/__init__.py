"""The rules engine: pure Python, no web framework, no storage, no I/O.

Modules read like a rules book: :mod:`.cards` (notation, the deck),
:mod:`.rules` (rule sets as data, the catalog), :mod:`.melds` (sets, runs,
jokers, opening, building, release), :mod:`.scoring` (end of hand),
:mod:`.violations` (the codes a ruling may cite).
"""

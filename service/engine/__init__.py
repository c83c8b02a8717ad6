"""The rules engine: pure Python, no web framework, no storage, no I/O.

Modules read like a rules book:

* :mod:`.cards`: notation, the deck;
* :mod:`.rules`: rule sets as data (modes as enums, ``MatchEnd``), the catalog;
* :mod:`.players`: what a player id may be;
* :mod:`.melds`: sets and runs (``SetMeld``, ``RunMeld``), jokers, opening, building, release;
* :mod:`.scoring`: the end of a hand;
* :mod:`.solver`: the best arrangement of a hand;
* :mod:`.record`: a hand record, its JSON form; :mod:`.notation`: its text form;
* :mod:`.game`: a hand being played: phases, ``verify_``/``can_``/action per play, an
  operations log that replays;
* :mod:`.referee`: rulings on a whole record or one turn, by driving a game;
* :mod:`.match`: match standings and match end; :mod:`.selfplay`: a bot for tests and benches;
* :mod:`.violations`: the codes a ruling may cite; :mod:`.errors`: input it cannot take.
"""

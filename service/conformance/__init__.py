"""The published conformance corpus (docs/corpus.md#the-conformance-corpus): its format, its
generator and its runner.

* :mod:`.corpus`: reading ``corpus/``, comparing an answer with a case, what the cases cover;
* :mod:`.runner`: sending the cases to a server (``python -m service.conformance --url URL``);
* :mod:`.generate`: writing the corpus from the service's own rulings (``make corpus``).
"""

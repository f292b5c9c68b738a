"""Which doc id is which item of which file: the wiki's corpus, the diary's, and a read-only view of them.

Design constraint: the markdown is the truth and the index is derived, so
a corpus turns "this file now holds these items" into the fewest index
writes (``wiki``), keeps items unparsed until shown (``items``), feeds the
diary's day files through the same machinery (``diary``), lets a caller
look without touching privates (``indexed``) and packs common terms ahead
of queries when asked (``warmup``).
"""

"""The lexical index: derived state, in memory, rebuilt from the files at any time.

Everything between a RecallFile's text and the BM25 scores lives here, in
the order its subpackages may import each other: the optional numpy switch
(``vectorized``), a token's index term (``terms``), texts made searchable in
bulk (``forms``), a term's first use (``search``), the inverted index and
its scorer (``scoring``) and the map from doc ids to items and files
(``corpus``). It reads files through :mod:`wikimem.disk` and knows nothing
of ranking, curation or the app.
"""

"""The lexical index: derived state, in memory, rebuilt from the files at any time.

Everything between a RecallFile's text and the BM25 scores lives here: the
English analyzer (``analyzer``: stop words, stemming), the search forms a
whole file is turned into in bulk (``scan``; with numpy, the stem map in
``stem_table`` and the CJK form in ``cjk_form``, switched on per load by
``load_scope``), the inverted index with its BM25 scorer, pure and numpy (``bm25``; the
switch for the optional numpy path in ``vectorized``), the cold load's
segments (``segments``; with numpy searched in views made at the load,
``form_search``), the optional on-disk postings and segment caches
(``postings_cache``, ``segment_cache`` built by ``inversion``; both
deletable, opened and written in ``derived``), the warm-up (``warmup``)
and the map from doc ids to items and files
(``corpus``; the per-item table in ``items``). It reads files through :mod:`wikimem.disk` and knows nothing
of ranking, curation or the app.
"""

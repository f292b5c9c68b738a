"""The inverted index and its BM25 scorer: a plain pure-Python scorer (the reference) and an eager numpy one.

Design constraint: both paths must give the same ranking (scores within a
tolerance, ties by doc id), so the pure path is kept simple enough to be
the oracle the numpy path is tested against.
"""

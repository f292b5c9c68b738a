"""A term's first use: its postings found in the cold load's segments.

Design constraint: the cost of a first use must follow the term's
candidates, not the store. ``segments`` holds the load's batches and asks
them; with numpy, each segment's rows are grouped by key at the load
(``key_groups``, searched by ``form_search``, made on ``view_maker``'s
thread), otherwise the pure search of the forms answers.
"""

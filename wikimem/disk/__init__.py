"""The file format and its durability: what a memory directory holds, byte for byte.

Everything that reads or writes the files lives here, and nothing here
knows about retrieval, curation or the app: the block grammar (``blocks``),
names and values a write accepts (``names``), wiki-links (``links``), the
marks inside content -- evidence lines, the derived marker, review marks
(``marks``), diary entry identities (``entry_id``) and days (``days``),
git conflict markers (``markers``), tolerant reads (``tolerant``), atomic
writes (``atomic``), the directory lock (``lock``), rollback records
(``intent``), byte-preserving block edits (``splice``), the bulk reader
(``loader``), and the two curation side files, ``lint-baseline.json``
(``baseline``) and ``reviewed.json`` (``reviewed``).
"""

"""The file format and its durability: what a memory directory holds, byte for byte.

Everything that reads or writes the files lives here, and nothing here
knows about retrieval, curation or the app.
"""

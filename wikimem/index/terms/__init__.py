"""From tokens to index terms: the English analyzer (stop words, function words, stemming) and its numpy stem map.

Design constraint: ``tokenize()``'s documented output never changes, so
everything that maps a token to the term the index holds lives here, one
stage after it, for documents and queries alike.
"""

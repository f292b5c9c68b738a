"""Scan forms: many texts made searchable in bulk, so a cold load pays no Python step per token.

Design constraint: a cold load reads every file but indexes nothing; what it
keeps must answer any term's first use exactly as tokenizing item by item
would. ``scan`` makes the latin and CJK forms (``cjk_form`` its numpy CJK
form, ``load_scope`` the per-load numpy switch); with jieba, ``words``
codes each distinct word into the CJK form, its segmentation kept across
processes by ``segmentation_cache``.
"""

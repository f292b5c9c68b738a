"""The numpy stem map makes the latin scan form the pure path makes, byte for byte, start for start."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wikimem.index.forms import load_scope as scope_mod
from wikimem.index import vectorized
from wikimem.index.terms.analyzer import Analyzer
from wikimem.index.forms.load_scope import load_scope
from wikimem.index.forms.scan import scan_texts

np = pytest.importorskip("numpy")
from wikimem.index.terms.stem_table import StemTable  # noqa: E402 -- numpy only

pytest.importorskip("snowballstemmer")


@pytest.fixture
def numpy_on(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(vectorized, "SCAN_MIN", 0)
    vectorized.switch(True)
    yield
    vectorized.switch(None)


def _latin(tokens: list[str]) -> bytes:
    """A segment's latin bytes as scan_joined hands them over: tokens between blank runs of any length."""
    rng = random.Random(len(tokens))
    return (" " + "".join(t + " " * rng.randint(1, 3) for t in tokens)).encode()


def _pure(tokens: list[str], stem: Callable[[str], str]) -> tuple[bytes, list[int], list[int]]:
    """The form, text starts and per-text counts + 1, made token by token as the pure path defines them."""
    form = ("  " + "  ".join(tokens and [t if t == "\x00" else stem(t) for t in tokens]) + "  ").encode()
    pieces = form.split(b"\x00")
    starts = [0]
    for piece in pieces:
        starts.append(starts[-1] + len(piece) + 1)
    return form, starts, [p.count(b" ") >> 1 for p in pieces]


def _toy_stem(token: str) -> str:
    """A stemmer that shortens, lengthens past 16 bytes and keeps -- numbers and short tokens kept, as the memo does."""
    if len(token) < 3 or token.isdigit():
        return token
    if token.endswith("s"):
        return token[:-1]
    if token.startswith("z"):
        return token * 3  # a long term (more than 16 bytes once the token has 6)
    return token


def _tokens(rng: random.Random, n: int, vocabulary: list[str]) -> list[str]:
    out = []
    for _ in range(n):
        roll = rng.random()
        if roll < 0.05:
            out.append("\x00")
        elif roll < 0.15:
            out.append(str(rng.randint(0, 10**rng.randint(1, 20))))  # numbers, some longer than 16 digits
        else:
            out.append(rng.choice(vocabulary))
    return out


def _vocabulary(rng: random.Random, n: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    words = {"".join(rng.choice(letters) for _ in range(rng.choice([1, 2, 3, 5, 8, 9, 15, 16, 17, 30]))) for _ in range(n)}
    # Keys that share a first word, a 16-byte prefix of a longer token, z-words (long terms).
    words |= {"abcdefghij", "abcdefghik", "abcdefgh", "a" * 16, "a" * 17, "zebras", "zz", "zoo", "runs", "run"}
    words |= {f"abcdefgh{i}s" for i in range(2000)}  # one first word, 2,000 second words: some share a slot
    return sorted(words)


@pytest.mark.parametrize("seed", range(4))
def test_forms_equal_the_token_by_token_map_over_many_segments(seed: int) -> None:
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng, 400)
    table = StemTable(np, _toy_stem)
    for _ in range(6):  # the table kept across segments, learning as it goes
        tokens = _tokens(rng, rng.randint(1, 3000), vocabulary)
        made = table.form(_latin(tokens))
        assert made is not None
        form, starts, counts = made
        want = _pure(tokens, _toy_stem)
        assert (form, list(starts), counts.tolist()) == want


def test_the_table_grows_and_keeps_every_term() -> None:
    """More distinct tokens than the first table holds: it grows mid-segment and every slot moves."""
    rng = random.Random(9)
    vocabulary = [f"w{i}x{rng.randint(0, 10**6)}s" for i in range(30_000)]
    table = StemTable(np, _toy_stem)
    for size in (100, 40_000, 40_000):
        tokens = _tokens(rng, size, vocabulary)
        made = table.form(_latin(tokens))
        assert made is not None
        assert made[0] == _pure(tokens, _toy_stem)[0]
    assert len(table) > 1 << 14  # past the first table's half


def test_the_real_stemmer_gives_the_analyzers_terms() -> None:
    analyzer = Analyzer("stem")
    assert analyzer.effective == "stem"
    tokens = "running runs ran 42 studies x1 \x00 generously happily 2026 the a ab abc \x00 caresses ponies".split(" ")
    table = StemTable(np, analyzer.term)
    made = table.form(_latin(tokens))
    assert made is not None
    assert made[0] == _pure(tokens, analyzer.term)[0]


@pytest.mark.parametrize("latin", [b"", b" ", b"   ", b"x ", b" x", b" a\x01b "])
def test_what_scan_joined_never_hands_over_is_refused(latin: bytes) -> None:
    assert StemTable(np, _toy_stem).form(latin) is None


@pytest.mark.usefixtures("numpy_on")
def test_scan_texts_takes_the_table_and_makes_the_pure_forms() -> None:
    rng = random.Random(3)
    pieces = ["Running", "runs", "ab", "x1", "42", "2026-07-20", "海边", "İstanbul", "K\u212aelvin", "studies",
              "a" * 20 + "ing", ".", " ", "\n", "哈", "Généreux"]
    texts = ["".join(rng.choice(pieces) + rng.choice([" ", "", "-"]) for _ in range(rng.randint(0, 40)))
             for _ in range(500)]
    texts += ["", "42", "x"]
    analyzer = Analyzer("stem")
    assert analyzer.effective == "stem"
    vector = scan_texts(texts, analyzer.latin_terms)
    assert analyzer._stems is not None and analyzer._stems._table is not None  # the numpy path ran
    vectorized.switch(False)
    pure = scan_texts(texts, Analyzer("stem").latin_terms)
    assert vector == pure


def test_a_load_scope_counts_its_own_forms_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectorized, "SCAN_MIN", 1000)
    vectorized.switch(True)
    try:
        assert not scope_mod.numpy_for(600)  # outside a scope: each call alone
        scope_mod.count_made(600)
        assert not scope_mod.numpy_for(600)
        for _ in range(2):  # a second load starts from nothing again
            with load_scope():
                assert not scope_mod.numpy_for(600)
                scope_mod.count_made(600)
                assert scope_mod.numpy_for(600)
    finally:
        vectorized.switch(None)


def _store(root: Path, items: int, files: int = 1) -> None:
    (root / "wiki").mkdir()
    for f in range(files):
        body = "\n\n".join(f"## note {i}\n\nrunning notes about walks and studies {i}" for i in range(items))
        (root / "wiki" / f"notes{f}.md").write_text(body + "\n", "utf-8")


def _build_in_a_fresh_process(root: Path, threshold: int, builds: int) -> list[str]:
    """Build the store ``builds`` times with this SCAN_MIN; prints: table used, numpy imported, hits of a query."""
    code = (
        "import sys\n"
        "from wikimem import MemoryIndex, MemoryStore\n"
        "from wikimem.index import vectorized\n"
        f"vectorized.SCAN_MIN = {threshold}\n"
        f"index = MemoryIndex(MemoryStore({str(root)!r}), use_jieba=False)\n"
        f"for _ in range({builds}):\n"
        "    index.build()\n"
        "print(index.analyzer._stems._table is not None, 'numpy' in sys.modules, len(index.retrieve('running').items))\n"
    )
    cwd = Path(__file__).resolve().parent.parent
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, check=True).stdout.split()


def test_a_large_load_takes_the_table_once_its_own_forms_pass_the_threshold(tmp_path: Path) -> None:
    """Every segment is under the threshold, the load is over it: the later segments take numpy's path."""
    _store(tmp_path, 1000, files=12)  # segments of 5,000 items: ~250 kB of text each
    assert _build_in_a_fresh_process(tmp_path, 300_000, 1) == ["True", "True", "10"]


def test_a_process_rebuilding_a_small_store_never_imports_numpy(tmp_path: Path) -> None:
    """Ten builds of a store whose forms are a fifth of the threshold: over it in total, never in one build."""
    _store(tmp_path, 1000)
    assert _build_in_a_fresh_process(tmp_path, 200_000, 10) == ["False", "False", "10"]

"""Tokenizer behaviour: latin words, CJK bigrams, optional jieba, token estimates."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from wikimem.tokenize import est_tokens, jieba_available, resolve_jieba, tokenize

# Not `from wikimem import tokenize`: the package exports a function of that name.
tokenize_module = importlib.import_module("wikimem.tokenize")

ROOT = Path(__file__).resolve().parents[1]
needs_jieba = pytest.mark.skipif(not jieba_available(), reason="jieba not installed")


def bigrams(text: str) -> list[str]:
    return tokenize(text, use_jieba=False)


def test_latin_runs_are_lowercased() -> None:
    assert bigrams("Hello WORLD ABC123") == ["hello", "world", "abc123"]


def test_latin_runs_split_on_anything_but_ascii_letters_and_digits() -> None:
    assert bigrams("c++ foo_bar e-mail 3.14") == ["c", "foo", "bar", "e", "mail", "3", "14"]


def test_non_ascii_latin_letters_separate_runs() -> None:
    assert bigrams("café naïve") == ["caf", "na", "ve"]


def test_cjk_run_becomes_character_bigrams() -> None:
    assert bigrams("我喜欢海边") == ["我喜", "喜欢", "欢海", "海边"]


def test_single_character_run_yields_the_character() -> None:
    assert bigrams("好") == ["好"]


def test_two_character_run_yields_one_bigram() -> None:
    assert bigrams("海边") == ["海边"]


def test_punctuation_splits_cjk_runs() -> None:
    assert bigrams("海边，日出。好！") == ["海边", "日出", "好"]


def test_whitespace_splits_cjk_runs() -> None:
    assert bigrams("海边 日出") == ["海边", "日出"]


def test_mixed_text_keeps_order_and_latin_splits_cjk_runs() -> None:
    assert bigrams("我爱Python3和AI工具") == ["我爱", "python3", "和", "ai", "工具"]


def test_extension_a_and_compatibility_ideographs_are_cjk() -> None:
    assert bigrams("\u3400\u4e00\uf900") == ["\u3400\u4e00", "\u4e00\uf900"]


def test_kana_and_hangul_become_bigrams() -> None:
    assert bigrams("テキスト 한국어") == ["テキ", "キス", "スト", "한국", "국어"]


def test_katakana_middle_dot_is_punctuation() -> None:
    assert bigrams("ジョン・スミス") == ["ジョ", "ョン", "スミ", "ミス"]


def test_empty_and_punctuation_only_text_has_no_tokens() -> None:
    assert bigrams("") == []
    assert bigrams("，。!? -- ...") == []


def test_use_jieba_false_never_resolves_to_jieba() -> None:
    assert resolve_jieba(False) is False


def test_auto_and_prefer_resolve_to_jieba_exactly_when_available() -> None:
    assert resolve_jieba(None) is jieba_available()
    assert resolve_jieba(True) is jieba_available()


def test_jieba_is_not_imported_by_the_bigram_path() -> None:
    code = (
        "import sys\n"
        "import wikimem\n"
        "from wikimem.tokenize import est_tokens, jieba_available, resolve_jieba, tokenize\n"
        "tokenize('我喜欢海边 Hello', use_jieba=False)\n"
        "est_tokens('我喜欢海边')\n"
        "jieba_available(); resolve_jieba(None)\n"
        "print('jieba' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_prefer_jieba_falls_back_to_bigrams_when_jieba_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokenize_module, "_jieba_module", None)
    monkeypatch.setattr(tokenize_module, "_jieba_importable", False)
    assert tokenize("我喜欢海边", use_jieba=True) == ["我喜", "喜欢", "欢海", "海边"]


@needs_jieba
def test_prefer_jieba_gives_words() -> None:
    tokens = tokenize("我喜欢海边", use_jieba=True)
    assert "喜欢" in tokens and "海边" in tokens
    assert "欢海" not in tokens


@needs_jieba
def test_jieba_mode_keeps_latin_tokens_and_drops_punctuation() -> None:
    tokens = tokenize("Hello, 我喜欢海边！ABC 123", use_jieba=True)
    assert tokens[0] == "hello"
    assert tokens[-2:] == ["abc", "123"]
    assert all(t.strip() and t.isalnum() for t in tokens)


@needs_jieba
def test_auto_mode_uses_jieba_when_installed() -> None:
    assert tokenize("我喜欢海边") == tokenize("我喜欢海边", use_jieba=True)


def test_est_tokens_counts_one_per_latin_word() -> None:
    assert est_tokens("Hello world, it's 2026") == 5


def test_est_tokens_counts_one_per_cjk_character() -> None:
    assert est_tokens("我喜欢海边。") == 5


def test_est_tokens_adds_latin_words_and_cjk_characters() -> None:
    assert est_tokens("我爱Python和AI") == 5


def test_est_tokens_of_empty_text_is_zero() -> None:
    assert est_tokens("") == 0


@needs_jieba
def test_kana_runs_follow_the_same_bigram_rule_in_jieba_mode() -> None:
    # One rule for CJK runs in both modes: jieba segments ideographs only.
    assert tokenize("カタカナ ひ", use_jieba=True) == tokenize("カタカナ ひ", use_jieba=False) == ["カタ", "タカ", "カナ", "ひ"]


def test_the_bigram_rule_lives_in_one_function(monkeypatch: pytest.MonkeyPatch) -> None:
    # The tokenizer's CJK output comes from cjk_run_tokens, so changing the
    # rule in that one place changes every path that tokenizes.
    monkeypatch.setattr(tokenize_module, "cjk_run_tokens", lambda run: [run])
    assert bigrams("sea 海边玩 x") == ["sea", "海边玩", "x"]

"""Secrets never enter the memory: the detector, hard."""

from __future__ import annotations

import pytest

from wikimem.capture import find_secrets, redact, redact_joined

KEYS = {
    "anthropic": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx-yz_0123456789",
    "openai": "sk-proj-AbCdEfGhIjKlMnOpQrStUv0123",
    "openai-legacy": "sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab",
    "github": "ghp_Zq8vN2xK4mR7tY1wB5cD9fH3jL6pS0aE2gU4",
    "github-oauth": "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    "github-pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "gitlab": "glpat-Abcdefghij0123456789",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "aws-temp": "ASIAY34FZKBOKMUTVV7A",
    "slack-bot": "xoxb-2950158817-7c4Hq8Zr2LmKp",
    "slack-user": "xoxp-1234567890-0987654321-AbCdEf",
    "slack-hook": "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX",
    "google": "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "stripe": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "npm": "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "huggingface": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
}


@pytest.mark.parametrize("name", sorted(KEYS))
def test_provider_keys_are_redacted_wherever_they_are(name: str) -> None:
    key = KEYS[name]
    for text in (key, f"use {key} here", f"KEY={key}", f'"{key}"', f"(see:{key})", f"{key}\nnext"):
        out = redact(text)
        assert key not in out and "[REDACTED:" in out, text
        assert key[:14] not in out


PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACB\n-----END OPENSSH PRIVATE KEY-----"


def test_a_private_key_block_goes_whole_and_the_text_around_it_stays() -> None:
    out = redact(f"here:\n{PEM}\nthanks")
    assert out == "here:\n[REDACTED:private-key]\nthanks"


def test_a_private_key_block_cut_before_its_end_goes_to_the_end_of_the_text() -> None:
    assert redact("key -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA") == "key [REDACTED:private-key]"


@pytest.mark.parametrize("text,kept", [
    ("password=hunter2", "password="),
    ("PASSWORD: correct-horse", "PASSWORD: "),
    ("db_password = 'tr0ub4dor&3'", "db_password = "),
    ('{"client_secret": "abc123xyz"}', '{"client_secret": '),
    ("export API_KEY=abc123def456", "export API_KEY="),
    ("mysql -u root --password s3cret", "mysql -u root --password "),
    ("curl --token=abc.def.ghi", "curl --token="),
    ("secret_key: zzz-top", "secret_key: "),
    ("Authorization: Bearer abcdefghij0123456789", "Authorization: Bearer "),
    ("auth_token=tok_9f8e7d6c", "auth_token="),
    ("pwd=12345", "pwd="),
])
def test_assignments_lose_their_value_and_keep_their_name(text: str, kept: str) -> None:
    out = redact(text)
    assert out.startswith(kept) and "[REDACTED:" in out
    assert text[len(kept):].strip("'\"") not in out


def test_credentials_in_a_url_lose_the_password_not_the_host() -> None:
    assert redact("clone https://ada:p4ssw0rd@git.example.com/x.git") == \
        "clone https://ada:[REDACTED:url-password]@git.example.com/x.git"


@pytest.mark.parametrize("text", [
    "max_tokens=512 and token_count: 3",
    "the password is required",
    "set password=<your password>",
    "password: ${DB_PASSWORD}",
    "password=******",
    "api_key: null",
    "we talked about the keyboard and the sky",
    "ask-for-help and task-runner are fine",
])
def test_text_that_only_talks_about_secrets_stays(text: str) -> None:
    assert redact(text) == text


def test_redaction_is_idempotent() -> None:
    text = f"password=hunter2 {KEYS['github']} {PEM}"
    once = redact(text)
    assert redact(once) == once and find_secrets(once) == []


def test_a_key_split_over_two_content_blocks_is_redacted_on_both_sides() -> None:
    key = KEYS["anthropic"]
    for cut in (3, 8, 14, 20, len(key) - 4):
        out = redact_joined([f"my key: {key[:cut]}", f"{key[cut:]} thanks"])
        assert key[:cut] not in out.split("\n")[0][8:] or cut <= 3
        assert key[cut:] not in out
        assert out.endswith(" thanks")


def test_an_aws_key_split_three_ways_is_still_caught() -> None:
    out = redact_joined(["id AKIA", "IOSFODNN", "7EXAMPLE done"])
    assert "IOSFODNN" not in out and "7EXAMPLE" not in out and out.endswith(" done")


def test_strict_mode_ignores_short_or_plain_word_values() -> None:
    assert find_secrets("password: see the vault", strict=True) == []
    assert find_secrets("password=hunter2", strict=True) == []
    assert [s.kind for s in find_secrets("password=Hunter2Hunter2", strict=True)] == ["password"]
    assert [s.kind for s in find_secrets(KEYS["aws"], strict=True)] == ["aws-key"]


def test_the_cheap_prefilter_never_rules_out_a_text_the_patterns_match() -> None:
    import random

    from wikimem.capture import may_hold_secret

    samples = [f"{pre}{key}{post}" for key in KEYS.values() for pre in ("", "x ", "KEY=") for post in ("", " y")]
    samples += [PEM, "password=hunter2", "PASSWORD: correct-horse", "db_password = 'tr0ub4dor&3'",
                '{"client_secret": "abc123xyz"}', "mysql -u root --password s3cret", "curl --token=abc.def.ghi",
                "Authorization: Bearer abcdefghij0123456789", "https://ada:p4ssw0rd@git.example.com/x.git",
                "Token  abcdefghijklmnop123456", "API_KEY:\tabc123def", "-----BEGIN EC PRIVATE KEY-----\nabc"]
    rng = random.Random(16)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 :=-_'\"/@.\n"
    words = ["pass", "password", "token", "key", "secret", "sk-", "ghp_", "AKIA", "xoxb-", "bearer", "://", "eyJ"]
    for _ in range(3000):
        samples.append("".join(rng.choice(words) if rng.random() < 0.15 else rng.choice(alphabet)
                               for _ in range(rng.randrange(5, 80))))
    for text in samples:
        if find_secrets(text) or find_secrets(text, strict=True):
            assert may_hold_secret(text), text


@pytest.mark.parametrize("text", [
    "token = tokenize(text)", "pwd: /home/ada/shop", "max_tokens=512", "items.sort(key=len)",
    "password = os.environ['DB_PASSWORD']", "self.token = token", "export GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "token_url = 'https://auth.example.com/oauth/token'", "commit 4f9c2a1be0d3c5e7f9a1b3c5d7e9f1a3b5c7d9e1",
    "session 3f2a9c1e-8b7d-4c6e-9a5f-1e2d3c4b5a69", "Authorization: Bearer $TOKEN", "gpg --list-secret-keys",
])
def test_code_and_ids_next_to_secret_words_stay(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("text,kept", [
    ("secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "secret "),
    ('headers = {"X-API-Key": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"}', 'headers = {"X-API-Key": "'),
    ("curl -u ada:s3cr3t-pw https://example.com", "curl -u ada:"),
    ("the password is hunter2", "the password is "),
    ("https://api.example.com/v1?access_token=9f8e7d6c5b4a39281706f5e4&limit=5",
     "https://api.example.com/v1?access_token="),
    ("set PGPASSWORD=Sup3rS3cret!", "set PGPASSWORD="),
])
def test_a_value_next_to_a_secret_word_goes(text: str, kept: str) -> None:
    out = redact(text)
    assert out.startswith(kept + "[REDACTED:"), out
    assert text[len(kept):len(kept) + 8] not in out


@pytest.mark.parametrize("text", [
    "a" * 200_000 + " ://@", "-sk" * 70_000, "-pk.eyJ" * 30_000, "token " * 40_000, "https://" * 30_000 + "@",
    "PRIVATE KEY " * 20_000, "key=" * 50_000, "-us" * 60_000, "a_" * 100_000 + "!", ("eyJ" + "a" * 20 + ".") * 10_000,
    "pass: a " * 30_000, "password=" + "a_" * 199 + "!",
], ids=lambda text: f"{text[:12]!r}x{len(text)}")
def test_hostile_text_is_scanned_in_linear_time(text: str) -> None:
    # Each of these made a scan quadratic or backtrack at some point; at these sizes that does not finish.
    assert redact(redact(text)) == redact(text)


def test_a_random_value_holding_a_secret_word_or_only_letters_is_still_a_secret() -> None:
    import random
    rng = random.Random(5)
    letters = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") for _ in range(32))
    mixed = "esecret_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(28))
    for value in (letters, mixed):
        out = redact(f'NAME_API_TOKEN = "{value}"')
        assert value not in out and "[REDACTED:" in out, value
    for label in ("challengePassword", "role-secret-key", "FORCE_CHANGE_PASSWORD", "context"):
        assert redact(f'password: "{label}"') == f'password: "{label}"'

"""The redaction corpus: fake secrets of many kinds planted in text, and ordinary text that must stay as it is.

Every secret is generated at run time by a seeded generator from its kind's
shape (the shapes public secret scanners' rules describe), so nothing here
is a real key, and nothing committed looks like a live one to a push
scanner. Two kinds of kind:

* *self-identifying* keys carry their provider's prefix or shape (``ghp_…``,
  ``AKIA…``, ``SG.….…``): they must be caught wherever they stand -- bare,
  in an assignment, in JSON, in a URL, in prose, in a working directory
  and in a branch name;
* *contextual* secrets (a 32-hex auth token, a UUID API key, an AWS secret
  key, a password) look like any hash or id: they can only be caught next
  to a secret-ish word, so they are planted in those forms only.

Used by ``bench/bench_redact.py`` (recall per kind, false positives,
throughput) and by ``tests/test_redact_corpus.py``.
"""

from __future__ import annotations

import base64
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["FORMS", "Kind", "Planted", "kinds", "ordinary_texts", "planted"]

HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
DIGITS = string.digits
UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
ALNUM = string.ascii_letters + string.digits
LOWNUM = LOWER + DIGITS
UPNUM = UPPER + DIGITS
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l".upper()

Part = str | tuple[str, int]


def _make(rng: random.Random, *parts: Part) -> str:
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        else:
            chars, n = part
            out.append("".join(rng.choice(chars) for _ in range(n)))
    return "".join(out)


def _shape(*parts: Part) -> Callable[[random.Random], str]:
    return lambda rng: _make(rng, *parts)


def _jwt(rng: random.Random) -> str:
    def seg(obj: str) -> str:
        return base64.urlsafe_b64encode(obj.encode()).decode().rstrip("=")
    header = seg('{"alg":"HS256","typ":"JWT"}')
    body = seg('{"sub":"%d","name":"%s","iat":%d}' % (rng.randrange(10**9), rng.choice(["ada", "bo", "cy"]),
                                                     rng.randrange(1_600_000_000, 1_800_000_000)))
    return f"{header}.{body}.{_make(rng, (URLSAFE, 43))}"


def _pem(label: str) -> Callable[[random.Random], str]:
    def make(rng: random.Random) -> str:
        body = "\n".join(_make(rng, (B64, 64)) for _ in range(rng.randrange(3, 6)))
        return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"
    return make


def _grafana_key(rng: random.Random) -> str:
    raw = '{"k":"%s","n":"ci","id":%d}' % (_make(rng, (ALNUM, 32)), rng.randrange(10**6))
    return base64.b64encode(raw.encode()).decode().rstrip("=").replace("+", "A").replace("/", "B")


@dataclass(frozen=True)
class Kind:
    """One kind of secret: its name, how to make one, whether its shape alone gives it away."""

    name: str
    make: Callable[[random.Random], str]
    self_identifying: bool = True
    #: May it stand in a path segment or a branch name (no ``/``, no newline)?
    pathable: bool = True


def kinds() -> list[Kind]:
    """Every kind of the corpus."""
    s = _shape
    k: list[Kind] = [
        Kind("github-pat", s("ghp_", (ALNUM, 36))),
        Kind("github-oauth", s("gho_", (ALNUM, 36))),
        Kind("github-user-to-server", s("ghu_", (ALNUM, 36))),
        Kind("github-server-to-server", s("ghs_", (ALNUM, 36))),
        Kind("github-refresh", s("ghr_", (ALNUM, 36))),
        Kind("github-fine-grained", s("github_pat_", (ALNUM, 22), "_", (ALNUM, 59))),
        Kind("gitlab-pat", s("glpat-", (URLSAFE, 20))),
        Kind("gitlab-pipeline-trigger", s("glptt-", (HEX, 40))),
        Kind("gitlab-deploy", s("gldt-", (URLSAFE, 20))),
        Kind("gitlab-runner", s("glrt-", (URLSAFE, 20))),
        Kind("gitlab-runner-registration", s("GR1348941", (URLSAFE, 20))),
        Kind("gitlab-feed", s("glft-", (URLSAFE, 20))),
        Kind("gitlab-oauth-secret", s("gloas-", (URLSAFE, 64))),
        Kind("gitlab-scim", s("glsoat-", (URLSAFE, 20))),
        Kind("gitlab-ci-job", s("glcbt-", (ALNUM, 3), "_", (URLSAFE, 20))),
        Kind("gitlab-agent", s("glagent-", (URLSAFE, 50))),
        Kind("slack-bot", s("xoxb-", (DIGITS, 12), "-", (DIGITS, 13), "-", (ALNUM, 24))),
        Kind("slack-user", s("xoxp-", (DIGITS, 12), "-", (DIGITS, 12), "-", (DIGITS, 13), "-", (HEX, 32))),
        Kind("slack-app", s("xapp-1-", (UPNUM, 11), "-", (DIGITS, 13), "-", (HEX, 64))),
        Kind("slack-legacy-workspace", s("xoxa-2-", (ALNUM, 32))),
        Kind("slack-config-refresh", s("xoxe-1-", (UPNUM, 146))),
        Kind("slack-webhook", s("https://hooks.slack.com/services/T", (UPNUM, 8), "/B", (UPNUM, 10), "/", (ALNUM, 24)),
             pathable=False),
        Kind("stripe-secret-live", s("sk_live_", (ALNUM, 24))),
        Kind("stripe-secret-test", s("sk_test_", (ALNUM, 24))),
        Kind("stripe-secret-prod", s("sk_prod_", (ALNUM, 24))),
        Kind("stripe-restricted", s("rk_live_", (ALNUM, 24))),
        Kind("stripe-webhook-secret", s("whsec_", (ALNUM, 32))),
        Kind("openai-project", s("sk-proj-", (URLSAFE, 58), "T3BlbkFJ", (URLSAFE, 58))),
        Kind("openai-legacy", s("sk-", (ALNUM, 20), "T3BlbkFJ", (ALNUM, 20))),
        Kind("openai-service-account", s("sk-svcacct-", (URLSAFE, 58), "T3BlbkFJ", (URLSAFE, 58))),
        Kind("anthropic-api", s("sk-ant-api03-", (URLSAFE, 93), "AA")),
        Kind("anthropic-admin", s("sk-ant-admin01-", (URLSAFE, 93), "AA")),
        Kind("aws-access-key", s("AKIA", (UPPER + "234567", 16))),
        Kind("aws-temporary-key", s("ASIA", (UPPER + "234567", 16))),
        Kind("google-api", s("AIza", (URLSAFE, 35))),
        Kind("google-oauth-secret", s("GOCSPX-", (URLSAFE, 28))),
        Kind("google-oauth-access", s("ya29.", (URLSAFE, 120))),
        Kind("huggingface", s("hf_", (ALNUM, 34))),
        Kind("huggingface-org", s("api_org_", (ALNUM, 34))),
        Kind("npm", s("npm_", (ALNUM, 36))),
        Kind("pypi", s("pypi-AgEIcHlwaS5vcmc", (URLSAFE, 70))),
        Kind("rubygems", s("rubygems_", (HEX, 48))),
        Kind("clojars", s("CLOJARS_", (LOWNUM, 60))),
        Kind("digitalocean-pat", s("dop_v1_", (HEX, 64))),
        Kind("digitalocean-oauth", s("doo_v1_", (HEX, 64))),
        Kind("digitalocean-refresh", s("dor_v1_", (HEX, 64))),
        Kind("sendgrid", s("SG.", (URLSAFE, 22), ".", (URLSAFE, 43))),
        Kind("sendinblue", s("xkeysib-", (HEX, 64), "-", (ALNUM, 16))),
        Kind("shopify-access", s("shpat_", (HEX, 32))),
        Kind("shopify-shared-secret", s("shpss_", (HEX, 32))),
        Kind("shopify-custom-app", s("shpca_", (HEX, 32))),
        Kind("shopify-private-app", s("shppa_", (HEX, 32))),
        Kind("shippo", s("shippo_live_", (HEX, 40))),
        Kind("vault-service", s("hvs.", (URLSAFE, 95))),
        Kind("vault-batch", s("hvb.", (URLSAFE, 140))),
        Kind("age-secret", s("AGE-SECRET-KEY-1", (BECH32, 58))),
        Kind("jwt", _jwt),
        Kind("private-key-rsa", _pem("RSA PRIVATE KEY"), pathable=False),
        Kind("private-key-openssh", _pem("OPENSSH PRIVATE KEY"), pathable=False),
        Kind("private-key-pkcs8", _pem("PRIVATE KEY"), pathable=False),
        Kind("private-key-ec", _pem("EC PRIVATE KEY"), pathable=False),
        Kind("private-key-pgp", _pem("PGP PRIVATE KEY BLOCK"), pathable=False),
        Kind("twilio-api-key", s("SK", (HEX, 32))),
        Kind("mailgun-private", s("key-", (HEX, 32))),
        Kind("mailgun-public", s("pubkey-", (HEX, 32))),
        Kind("databricks", s("dapi", (HEX, 32))),
        Kind("heroku-v2", s("HRKU-AA", (URLSAFE, 58))),
        Kind("doppler-personal", s("dp.pt.", (ALNUM, 43))),
        Kind("doppler-service", s("dp.st.", (ALNUM, 43))),
        Kind("linear-api", s("lin_api_", (ALNUM, 40))),
        Kind("atlassian-api", s("ATATT3", (URLSAFE, 186))),
        Kind("bitbucket-app", s("ATBB", (ALNUM, 32))),
        Kind("notion-integration", s("secret_", (ALNUM, 43))),
        Kind("notion-ntn", s("ntn_", (DIGITS, 11), (ALNUM, 35))),
        Kind("postman", s("PMAK-", (HEX, 24), "-", (HEX, 34))),
        Kind("pulumi", s("pul-", (HEX, 40))),
        Kind("terraform-cloud", s((LOWNUM, 14), ".atlasv1.", (URLSAFE, 67))),
        Kind("1password-service-account", s("ops_eyJ", (B64, 250))),
        Kind("1password-secret-key", s("A3-", (UPNUM, 6), "-", (UPNUM, 11), "-", (UPNUM, 5), "-", (UPNUM, 5), "-",
                                       (UPNUM, 5))),
        Kind("adobe-client-secret", s("p8e-", (ALNUM, 32))),
        Kind("alibaba-access-key", s("LTAI", (ALNUM, 20))),
        Kind("artifactory-api", s("AKCp", (ALNUM, 69))),
        Kind("artifactory-reference", s("cmVmd", (ALNUM, 59))),
        Kind("azure-ad-client-secret", s((ALNUM, 3), (DIGITS, 1), "Q~", (URLSAFE + "~.", 34))),
        Kind("cloudflare-origin-ca", s("v1.0-", (HEX, 24), "-", (HEX, 146))),
        Kind("clickhouse-cloud", s("4b1d", (ALNUM, 38))),
        Kind("duffel", s("duffel_live_", (URLSAFE, 43))),
        Kind("dynatrace", s("dt0c01.", (UPNUM, 24), ".", (ALNUM, 64))),
        Kind("easypost", s("EZAK", (ALNUM, 54))),
        Kind("easypost-test", s("EZTK", (ALNUM, 54))),
        Kind("flutterwave-secret", s("FLWSECK_TEST-", (HEX, 32), "-X")),
        Kind("flyio", s("fo1_", (URLSAFE, 43))),
        Kind("frameio", s("fio-u-", (URLSAFE, 64))),
        Kind("grafana-api", _grafana_key),
        Kind("grafana-cloud", s("glc_", (ALNUM, 60))),
        Kind("grafana-service-account", s("glsa_", (ALNUM, 32), "_", (HEX, 8))),
        Kind("harness", s("pat.", (URLSAFE, 22), ".", (ALNUM, 24), ".", (ALNUM, 20))),
        Kind("infracost", s("ico-", (ALNUM, 32))),
        Kind("intra42", s("s-s4t2ud-", (HEX, 64))),
        Kind("newrelic-user", s("NRAK-", (UPNUM, 27))),
        Kind("newrelic-browser", s("NRJS-", (HEX, 19))),
        Kind("openshift", s("sha256~", (URLSAFE, 43))),
        Kind("perplexity", s("pplx-", (ALNUM, 48))),
        Kind("planetscale", s("pscale_tkn_", (URLSAFE, 43))),
        Kind("planetscale-password", s("pscale_pw_", (URLSAFE, 43))),
        Kind("prefect", s("pnu_", (ALNUM, 36))),
        Kind("readme", s("rdme_", (LOWNUM, 70))),
        Kind("scalingo", s("tk-us-", (URLSAFE, 48))),
        Kind("sentry-user", s("sntryu_", (HEX, 64))),
        Kind("settlemint", s("sm_pat_", (ALNUM, 16))),
        Kind("square-access", s("sq0atp-", (URLSAFE, 22))),
        Kind("square-oauth-secret", s("sq0csp-", (URLSAFE, 43))),
        Kind("facebook-page", s("EAAM", (ALNUM, 120))),
        Kind("sourcegraph", s("sgp_", (HEX, 16), "_", (HEX, 40))),
        Kind("typeform", s("tfp_", (URLSAFE, 59))),
        Kind("yandex-api", s("AQVN", (URLSAFE, 36))),
        Kind("octopus-deploy", s("API-", (UPNUM, 26))),
        Kind("groq", s("gsk_", (ALNUM, 52))),
        Kind("xai", s("xai-", (ALNUM, 80))),
        Kind("replicate", s("r8_", (ALNUM, 37))),
        Kind("tavily", s("tvly-", (ALNUM, 32))),
        Kind("langsmith", s("lsv2_pt_", (HEX, 32), "_", (HEX, 10))),
        Kind("supabase", s("sbp_", (HEX, 40))),
        Kind("netlify", s("nfp_", (ALNUM, 36))),
        Kind("render", s("rnd_", (ALNUM, 32))),
        Kind("docker-hub", s("dckr_pat_", (URLSAFE, 27))),
        Kind("circleci", s("CCIPAT_", (ALNUM, 22), "_", (HEX, 40))),
        Kind("buildkite", s("bkua_", (HEX, 40))),
        Kind("figma", s("figd_", (URLSAFE, 40))),
        Kind("contentful", s("CFPAT-", (URLSAFE, 43))),
        Kind("airtable-pat", s("pat", (ALNUM, 14), ".", (HEX, 64))),
        Kind("pinecone", s("pcsk_", (ALNUM, 5), "_", (ALNUM, 60))),
        Kind("razorpay", s("rzp_live_", (ALNUM, 14))),
        Kind("mapbox-secret", s("sk.eyJ1Ijoi", (ALNUM, 40), ".", (URLSAFE, 22))),
        Kind("mailchimp", s((HEX, 32), "-us", (DIGITS, 2))),
        Kind("maxmind", s((ALNUM, 6), "_", (ALNUM, 29), "_mmk")),
        Kind("telegram-bot", s((DIGITS, 10), ":AA", (URLSAFE, 33)), pathable=False),
        Kind("discord-webhook", s("https://discord.com/api/webhooks/", (DIGITS, 18), "/", (URLSAFE, 68)),
             pathable=False),
        Kind("teams-webhook", s("https://acme.webhook.office.com/webhookb2/", (HEX, 8), "-", (HEX, 4), "-",
                                (HEX, 4), "-",
                                (HEX, 4), "-", (HEX, 12), "@", (HEX, 8), "-", (HEX, 4), "-", (HEX, 4), "-", (HEX, 4),
                                "-", (HEX, 12), "/IncomingWebhook/", (HEX, 32), "/", (HEX, 8), "-", (HEX, 4), "-",
                                (HEX, 4), "-", (HEX, 4), "-", (HEX, 12)), pathable=False),
        Kind("discord-bot", s("M", (ALNUM, 23), ".", (URLSAFE, 6), ".", (URLSAFE, 27))),
        # contextual: nothing in the value says what it is
        Kind("aws-secret-key", s((B64, 40)), self_identifying=False, pathable=False),
        Kind("twilio-auth-token", s((HEX, 32)), self_identifying=False),
        Kind("heroku-api-key", lambda rng: str(uuid.UUID(int=rng.getrandbits(128))), self_identifying=False),
        Kind("cloudflare-api-token", s((URLSAFE, 40)), self_identifying=False),
        Kind("datadog-api-key", s((HEX, 32)), self_identifying=False),
        Kind("azure-storage-key", s((B64, 86), "=="), self_identifying=False, pathable=False),
        Kind("azure-devops-pat", s((LOWER + "234567", 52)), self_identifying=False),
        Kind("okta-token", s("00", (URLSAFE, 40)), self_identifying=False),
        Kind("generic-base64-secret", s((B64, 44)), self_identifying=False, pathable=False),
        Kind("generic-hex-secret", s((HEX, 64)), self_identifying=False),
        Kind("generic-password", lambda rng: _make(rng, (ALNUM, 10), rng.choice("!@#%^*"), (DIGITS, 2)),
             self_identifying=False),
        Kind("django-secret-key", s((LOWNUM + "!@#%^&*(-_=+)", 50)), self_identifying=False, pathable=False),
    ]
    return k


#: How a secret is planted, and whether a kind that does not identify itself can be caught that way.
FORMS: dict[str, tuple[Callable[[str, str], str], bool]] = {
    "bare": (lambda s, n: s, False),
    "bare-in-text": (lambda s, n: f"here it is\n{s}\nthanks", False),
    "assignment": (lambda s, n: f'{n.upper().replace("-", "_")}_API_TOKEN = "{s}"', True),
    "env": (lambda s, n: f"export {n.upper().replace('-', '_')}_SECRET={s}", True),
    "json": (lambda s, n: '{"service": "%s", "api_key": "%s", "region": "eu"}' % (n, s.replace("\n", "\\n")), True),
    "yaml": (lambda s, n: f"{n}:\n  token: {s}" if "\n" not in s else f"{n}:\n  token: |\n    {s}", True),
    "url-query": (lambda s, n: f"curl 'https://api.example.com/v1/items?access_token={s}&limit=5'", True),
    "url-userinfo": (lambda s, n: f"git clone https://deploy:{s}@git.example.com/acme/shop.git", True),
    "prose": (lambda s, n: f"my key is {s} if you need it", True),
    "prose-secret": (lambda s, n: f"The secret {s} was rotated yesterday.", True),
    "cwd": (lambda s, n: f"/home/ada/{s}/shop", False),
    "branch": (lambda s, n: f"fix/{s}", False),
}


@dataclass(frozen=True)
class Planted:
    """A secret planted in a text: the kind, the form, the secret and the text."""

    kind: Kind
    form: str
    secret: str
    text: str


def planted(seed: int = 31, per_kind: int = 2) -> list[Planted]:
    """``per_kind`` fake secrets of every kind, each in every form that applies to it."""
    rng = random.Random(seed)
    out: list[Planted] = []
    for kind in kinds():
        for _ in range(per_kind):
            secret = kind.make(rng)
            for form, (plant, contextual_ok) in FORMS.items():
                if not kind.self_identifying and not contextual_ok:
                    continue
                if form in ("cwd", "branch", "url-query", "url-userinfo") and not kind.pathable:
                    continue
                if form == "url-userinfo" and "@" in secret:
                    continue
                out.append(Planted(kind, form, secret, plant(secret, kind.name)))
    return out


def caught(secret: str, redacted: str) -> bool:
    """True when the redacted text no longer holds the secret's random part (its second half)."""
    if secret in redacted:
        return False
    lines = [line for line in secret.splitlines() if len(line) >= 16]
    if len(lines) > 2:  # a PEM block: no body line may survive
        return not any(line in redacted for line in lines[1:-1])
    tail = secret[len(secret) // 2:]
    return len(tail) < 6 or tail not in redacted


# -- ordinary text ------------------------------------------------------------------------------------------------

_EN = [
    "The checkout test fails since yesterday; the fixture had a stale price.",
    "I refactored the tokenizer so that it keeps punctuation as separate tokens.",
    "The author's key point is that caching hides the real latency.",
    "We need to pass the user id to the template, not the whole session.",
    "Rotate the credentials every ninety days and keep them out of the repo.",
    "The password reset flow sends an email with a one-time link.",
    "Authentication now uses short-lived tokens issued by the identity provider.",
    "Basic usage: run the command with --help to see every option.",
    "Bearer tokens expire after an hour, refresh tokens after a week.",
    "The secret to a fast build is caching the dependency layer.",
    "Keyboard shortcuts are listed in the help screen (press ? to open it).",
    "Monkey-patching the clock made the flaky test deterministic.",
    "The primary key of the orders table is a composite of two columns.",
    "Passing tests: 412, skipped: 3, failed: 0.",
    "TODO: the retry in CI is still flaky; next steps are in the issue.",
    "Compass and bypass are words that contain pass but mean nothing secret.",
]
_ZH = [
    "结账测试从昨天开始失败，原因是测试数据里的价格过期了。",
    "我重构了分词器，现在标点符号会作为单独的词元保留。",
    "请把密钥放在环境变量里，不要提交到仓库。",
    "令牌一小时后过期，刷新令牌一周后过期。",
    "这个函数的关键在于缓存，而不是算法本身。",
    "密码重置流程会发送一封带一次性链接的邮件。",
    "明天上午十点开会讨论发布计划和回滚方案。",
    "数据库主键由两列组合而成，索引已经重建。",
]
_CODE = [
    "token = tokenize(text)",
    "tokens = text.split()",
    "for token in tokens:\n    counts[token] += 1",
    "max_tokens=512, temperature=0.2",
    "token_count: 3",
    "key=lambda item: item[1]",
    "items.sort(key=len)",
    "password = getpass.getpass('Password: ')",
    "password = os.environ['DB_PASSWORD']",
    "api_key = os.getenv('API_KEY')",
    "secret = load_secret(path)",
    "auth = (user, password)",
    "self.token = token",
    "headers = {'Authorization': f'Bearer {token}'}",
    "if not api_key:\n    raise SystemExit('set API_KEY')",
    "def check_password(password: str) -> bool:",
    "const token = await getToken();",
    "const apiKey = process.env.API_KEY;",
    "export GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "password: ${DB_PASSWORD}",
    "api_key: null",
    "secret_name: db-credentials",
    "TOKEN_TYPE = 'bearer'",
    "token_url = 'https://auth.example.com/oauth/token'",
    "password_reset_url: https://shop.example.com/account/reset",
    "pwd: /home/ada/shop",
    "cd $(pwd)/build && make",
    "git log --oneline | head -5",
    "npm install --save-dev typescript@5.4.2",
    "pytest -q -n 0 tests/test_capture_redact.py",
    "key_id: 7",
    "public_key = load_pem_public_key(data)",
    "primary_key: order_id",
    "tokenizer = Tokenizer(vocab_size=32000)",
    "AUTH_BACKENDS = ['django.contrib.auth.backends.ModelBackend']",
    "with open(key_file) as f:\n    key = f.read()",
    "password_hash = bcrypt.hashpw(password, salt)",
    "if token == expected:\n    return True",
    "curl -H 'Accept: application/json' https://api.example.com/health",
    "ssh -i ~/.ssh/id_ed25519 ada@build.example.com",
    "docker run -e POSTGRES_PASSWORD -p 5432:5432 postgres:16",
    "kubectl get secret db-creds -o yaml",
    "the keys are sorted: keys = sorted(d)",
    "secrets.token_hex(16)",
    "The token is stored in the keychain.",
    "my password is in the vault",
    "Authorization: Bearer $TOKEN",
    "curl -u $USER:$PASS https://example.com",
    "gpg --list-secret-keys --keyid-format=long",
    "echo $PW | docker login -u ada --password-stdin",
    "except KeyError as error:\n    return None",
    "for key, value in sorted(items):",
    "keys = list(mapping.keys())",
    "api_version: 2024-06-01",
    "password_min_length: 12",
    "PASS src/App.test.tsx (5.2 s)",
    "pass_rate: 0.95",
    "Idempotency-Key: 3f2a9c1e-8b7d-4c6e-9a5f-1e2d3c4b5a69",
    "cache_key = 'user:42:profile'",
    '"key": "uploads/2026/07/photo.jpg"',
    "max_completion_tokens: 4096",
    "The key is 42.",
    "ada@build:~/shop$ pwd\n/home/ada/shop",
    "the secret rotation job runs nightly",
    '"authorization_endpoint": "https://auth.example.com/authorize"',
]


def _sentence(rng: random.Random) -> str:
    return rng.choice(_EN)


def ordinary_texts(seed: int = 7) -> list[str]:
    """Text that holds no secret and must come out of redaction byte for byte: 400 and more."""
    rng = random.Random(seed)
    out: list[str] = list(_EN) + list(_ZH) + list(_CODE)
    for _ in range(40):
        sha = "".join(rng.choice(HEX) for _ in range(40))
        out.append(rng.choice([f"commit {sha}\nAuthor: Ada <ada@example.com>", f"fixed in {sha[:12]}",
                               f"git checkout {sha}", f"Merge: {sha[:7]} {sha[7:14]}",
                               f"revision {sha} (the key change)"]))
    for _ in range(30):
        u = uuid.UUID(int=rng.getrandbits(128))
        out.append(rng.choice([f"session {u}", f'{{"id": "{u}", "status": "ok"}}',
                               f"/home/ada/.claude/projects/{u}.jsonl",
                               f"request_id={u}", f"trace {u} took 120 ms"]))
    for _ in range(30):
        prose = " ".join(rng.choice(_EN) for _ in range(rng.randrange(1, 4)))
        blob = base64.b64encode(prose.encode()).decode()
        out.append(rng.choice([blob, f"data:text/plain;base64,{blob}", f'"content": "{blob}"']))
    for _ in range(20):
        color = "".join(rng.choice(HEX) for _ in range(6))
        out.append(rng.choice([f"color: #{color};", f"background: #{color.upper()} !important;",
                               f"--accent: #{color[:3]};"]))
    for _ in range(30):
        version = f"{rng.randrange(10)}.{rng.randrange(30)}.{rng.randrange(100)}"
        out.append(rng.choice([f"textual=={version}", f"version = \"{version}\"", f"v{version}-rc.{rng.randrange(5)}",
                               f"Python {version}", f"node v{version}", f'"typescript": "^{version}"']))
    for _ in range(20):
        ts = f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:" \
             f"{rng.randrange(60):02d}:{rng.randrange(60):02d}Z"
        out.append(rng.choice([ts, f"token_expires_at: {ts}", f'"timestamp": "{ts}"', f"[{ts}] INFO started"]))
    for _ in range(30):
        digest = "".join(rng.choice(HEX) for _ in range(64))
        b64 = base64.b64encode(bytes(rng.randrange(256) for _ in range(48))).decode()
        name = rng.choice(["requests", "urllib3", "idna", "certifi", "charset-normalizer"])
        out.append(rng.choice([
            f'    {{file = "{name}-2.31.0-py3-none-any.whl", hash = "sha256:{digest}"}},',
            f'      "integrity": "sha512-{b64}",',
            f'checksum = "{digest}"',
            f"{name}==2.31.0 \\\n    --hash=sha256:{digest}",
            f"golang.org/x/text v0.14.0 h1:{b64[:43]}=",
        ]))
    for _ in range(30):
        out.append(rng.choice([
            f"/home/ada/shop/src/{rng.choice(['auth', 'tokens', 'keys', 'secrets'])}/handler_{rng.randrange(99)}.py",
            f"C:\\Users\\ada\\Projects\\shop\\{rng.choice(['AuthTokenProvider', 'KeyManager'])}.cs",
            f"src/components/{rng.choice(['PasswordField', 'TokenList', 'ApiKeyForm'])}.tsx",
            f"~/.config/wikimem/{rng.choice(['config.toml', 'keys.json'])}",
        ]))
    for _ in range(30):
        out.append(rng.choice([
            f"https://github.com/acme/shop/pull/{rng.randrange(9999)}",
            f"https://docs.example.com/api/authentication#{rng.choice(['tokens', 'api-keys'])}",
            f"https://shop.example.com/search?q=secret+santa&page={rng.randrange(9)}",
            f"postgres://ada@localhost:5432/shop",
            f"https://example.com/oauth/authorize?client_id=shop&response_type=code&state={rng.randrange(99)}",
            f"git@github.com:acme/shop-{rng.randrange(99)}.git",
        ]))
    for _ in range(20):
        out.append(rng.choice([
            f"def test_token_{rng.randrange(99)}_is_refreshed_when_expired(client):",
            f"SELECT id, name FROM users WHERE api_key_id = {rng.randrange(999)};",
            f"const keyMap = new Map(); keyMap.set('k{rng.randrange(9)}', 1);",
            f"for (let i = 0; i < tokens.length; i++) {{ total += tokens[i].length; }}",
            f"echo \"done in {rng.randrange(99)}s\" >> build.log",
        ]))
    for _ in range(20):
        out.append(rng.choice(_ZH) + rng.choice(_EN))
    return out

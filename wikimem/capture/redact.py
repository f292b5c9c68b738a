"""Secrets never enter the memory: one detector for capture and for lint.

Capture copies text from agent logs (full of pasted keys, printed ``.env``
files, ``--password`` flags) into files that get committed, synced and
recalled into other agents' prompts, so everything it writes passes through
:func:`redact` first, and lint's ``secret-in-memory`` uses
:func:`find_secrets` on what is already there.

Three detectors, each replaced by ``[REDACTED:<kind>]``: provider keys by
their self-identifying shape (:data:`KINDS`), wherever they stand; a value
next to a secret-ish name (a password-like name takes any value that is not
a placeholder, path, URL, code or plain word; a token-like name only a value
that looks random, so ``token = tokenize(text)`` stays); and the password
of a URL with credentials.

Not caught, by design: a random-looking value with no secret-ish word near
it and no known prefix (it cannot be told from a hash or an id), and a
passphrase of plain words.

Capture redacts every kept text of long logs, so the scan stays linear:
one regex finds the long token-like runs and a provider rule is tried only
where a run starts with one of its heads. A secret split across two content
blocks of one message is caught by :func:`redact_joined`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["KINDS", "Secret", "find_secrets", "may_hold_secret", "redact", "redact_joined"]

# -- provider keys by their shape ------------------------------------------------------------------------------
#
# (kind, heads, pattern): ``pattern`` is tried with ``match`` where a token-like run (or a part of one after
# ``-``, ``_``, ``.``) starts with one of ``heads`` (its first one or two characters, exact case). A pattern may
# run past the run (``/``, ``+``, ``=``, ``:`` in the key). Ordered: the more specific shape of a head first.
_B = r"(?![A-Za-z0-9])"  # the key ends here: no letter or digit glued to it
_PROVIDERS: list[tuple[str, tuple[str, ...], str]] = [
    ("github-token", ("gh",), r"gh[pousr]_[A-Za-z0-9]{20,}"),
    ("github-token", ("gi",), r"github_pat_[A-Za-z0-9_]{22,}"),
    ("gitlab-token", ("gl",), r"gl(?:pat|ptt|dt|ft|rt|oas|soat|ffct|imt|agent|cbt|wt)-[\w\-.]{20,}"),
    ("gitlab-token", ("GR",), r"GR1348941[\w\-]{20,}"),
    ("grafana-token", ("gl",), r"glc_[A-Za-z0-9+/]{32,}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}" + _B),
    ("grafana-token", ("ey",), r"eyJrIjoi[A-Za-z0-9]{70,}={0,3}"),
    ("slack-token", ("xo",), r"xoxe\.xox[bp]-\d-[A-Za-z0-9]{20,}|xox[abposre]-[A-Za-z0-9\-]{10,}"),
    ("slack-token", ("xa",), r"xapp-\d-[A-Za-z0-9\-]{10,}"),
    ("stripe-key", ("sk", "rk", "pk"), r"[srp]k_(?:live|test|prod)_[A-Za-z0-9]{10,}"),
    ("stripe-key", ("wh",), r"whsec_[A-Za-z0-9]{24,}"),
    ("anthropic-key", ("sk",), r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", ("sk",), r"sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_\-]{0,64}[0-9A-Z])[A-Za-z0-9_\-]{20,}"),
    ("mapbox-token", ("sk", "pk"), r"[sp]k\.eyJ[\w\-]{20,}\.[\w\-]{10,}"),
    ("aws-key", ("AK", "AS", "AB", "AC", "AG", "AI", "AR", "AN", "A3"),
     r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}" + _B),
    ("google-key", ("AI",), r"AIza[\w\-]{35}" + _B),
    ("google-oauth", ("GO",), r"GOCSPX-[\w\-]{24,}"),
    ("google-oauth", ("ya",), r"ya29\.[\w\-]{30,}"),
    ("huggingface-token", ("hf",), r"hf_[A-Za-z0-9]{30,}"),
    ("huggingface-token", ("ap",), r"api_org_[A-Za-z0-9]{30,}"),
    ("npm-token", ("np",), r"npm_[A-Za-z0-9]{36}" + _B),
    ("pypi-token", ("py",), r"pypi-[\w\-]{40,}"),
    ("rubygems-token", ("ru",), r"rubygems_[a-f0-9]{48}" + _B),
    ("clojars-token", ("CL",), r"CLOJARS_[a-zA-Z0-9]{60}" + _B),
    ("digitalocean-token", ("do",), r"do[por]_v1_[a-f0-9]{64}" + _B),
    ("sendgrid-key", ("SG",), r"SG\.[\w\-]{16,32}\.[\w\-]{16,64}"),
    ("sendinblue-key", ("xk",), r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}" + _B),
    ("shopify-token", ("sh",), r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}" + _B),
    ("shippo-token", ("sh",), r"shippo_(?:live|test)_[a-fA-F0-9]{40}" + _B),
    ("vault-token", ("hv",), r"hv[sbr]\.[\w\-]{20,}"),
    ("age-key", ("AG",), r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("jwt", ("ey",), r"eyJ[\w\-]{10,4096}\.eyJ[\w\-]{10,8192}\.[\w\-]{0,4096}"),
    ("twilio-key", ("SK",), r"SK[0-9a-fA-F]{32}" + _B),
    ("mailgun-key", ("ke",), r"key-[0-9a-f]{32}" + _B),
    ("mailgun-key", ("pu",), r"pubkey-[0-9a-f]{32}" + _B),
    ("databricks-token", ("da",), r"dapi[a-f0-9]{32}(?:-\d)?" + _B),
    ("heroku-key", ("HR",), r"HRKU-AA[\w\-]{58}"),
    ("doppler-token", ("dp",), r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("linear-key", ("li",), r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _B),
    ("atlassian-token", ("AT",), r"AT(?:ATT|CTT)3[\w\-=]{100,}"),
    ("bitbucket-token", ("AT",), r"ATBB[A-Za-z0-9_=.\-]{32,}"),
    ("notion-token", ("se",), r"secret_[A-Za-z0-9]{43}" + _B),
    ("notion-token", ("nt",), r"ntn_[0-9]{11}[A-Za-z0-9]{35}" + _B),
    ("postman-key", ("PM",), r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}" + _B),
    ("pulumi-token", ("pu",), r"pul-[a-f0-9]{40}" + _B),
    ("1password-token", ("op",), r"ops_eyJ[A-Za-z0-9+/]{100,}={0,3}"),
    ("1password-key", ("A3",),
     r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}"),
    ("adobe-secret", ("p8",), r"p8e-[A-Za-z0-9]{32}" + _B),
    ("alibaba-key", ("LT",), r"LTAI[A-Za-z0-9]{20}" + _B),
    ("artifactory-key", ("AK",), r"AKCp[A-Za-z0-9]{69}" + _B),
    ("artifactory-key", ("cm",), r"cmVmd[A-Za-z0-9]{59}" + _B),
    ("cloudflare-key", ("v1",), r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),
    ("clickhouse-key", ("4b",), r"4b1d[A-Za-z0-9]{38}" + _B),
    ("duffel-token", ("du",), r"duffel_(?:test|live)_[\w\-=]{43}"),
    ("dynatrace-token", ("dt",), r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ("easypost-token", ("EZ",), r"EZ[AT]K[A-Za-z0-9]{54}" + _B),
    ("flutterwave-key", ("FL",), r"FLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{12,32}(?:-X)?"),
    ("flyio-token", ("fo", "fm"), r"fo1_[\w\-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}"),
    ("frameio-token", ("fi",), r"fio-u-[\w\-=]{64}"),
    ("harness-token", ("pa", "sa"), r"(?:pat|sat)\.[\w\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}" + _B),
    ("infracost-token", ("ic",), r"ico-[A-Za-z0-9]{32}" + _B),
    ("intra42-secret", ("s-",), r"s-s4t2(?:ud|af)-[a-fA-F0-9]{64}" + _B),
    ("lob-key", ("li", "te"), r"(?:live|test)_(?:pub_)?[a-f0-9]{31,35}" + _B),
    ("newrelic-key", ("NR",), r"NR(?:AK|JS|II)-[A-Za-z0-9\-]{19,32}" + _B),
    ("openshift-token", ("sh",), r"sha256~[\w\-]{43}" + _B),
    ("perplexity-key", ("pp",), r"pplx-[A-Za-z0-9]{48}" + _B),
    ("planetscale-token", ("ps",), r"pscale_(?:tkn|oauth|pw)_[\w=.\-]{32,64}"),
    ("prefect-token", ("pn",), r"pnu_[A-Za-z0-9]{36}" + _B),
    ("readme-token", ("rd",), r"rdme_[a-z0-9]{70}" + _B),
    ("scalingo-token", ("tk",), r"tk-us-[\w\-]{48}"),
    ("sentry-token", ("sn",), r"sntrys_eyJ[A-Za-z0-9+/=_]{50,}|sntryu_[a-f0-9]{64}" + _B),
    ("settlemint-token", ("sm",), r"sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}" + _B),
    ("square-token", ("sq",), r"sq0(?:atp|csp)-[\w\-]{22,60}"),
    ("square-token", ("EA",), r"EAAA[\w\-]{22,60}"),
    ("facebook-token", ("EA",), r"EAA[MC][A-Za-z0-9]{100,}"),
    ("sourcegraph-token", ("sg",), r"sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}" + _B),
    ("typeform-token", ("tf",), r"tfp_[\w\-.=]{59}"),
    ("yandex-key", ("AQ",), r"AQVN[\w\-]{35,38}" + _B),
    ("yandex-token", ("t1",), r"t1\.[A-Z0-9a-z_\-]+=*\.[A-Z0-9a-z_\-]{86}=*"),
    ("octopus-key", ("AP",), r"API-[A-Z0-9]{26}" + _B),
    ("groq-key", ("gs",), r"gsk_[A-Za-z0-9]{48,}"),
    ("xai-key", ("xa",), r"xai-[A-Za-z0-9]{60,}"),
    ("replicate-token", ("r8",), r"r8_[A-Za-z0-9]{37}" + _B),
    ("tavily-key", ("tv",), r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}" + _B),
    ("langsmith-key", ("ls",), r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}" + _B),
    ("supabase-token", ("sb",), r"sbp_[a-f0-9]{40}" + _B + r"|sb_secret_[\w\-]{20,}"),
    ("netlify-token", ("nf",), r"nfp_[A-Za-z0-9]{36}" + _B),
    ("render-key", ("rn",), r"rnd_[A-Za-z0-9]{32}" + _B),
    ("docker-token", ("dc",), r"dckr_pat_[\w\-]{27}"),
    ("circleci-token", ("CC",), r"CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}" + _B),
    ("buildkite-token", ("bk",), r"bkua_[a-f0-9]{40}" + _B),
    ("figma-token", ("fi",), r"figd_[\w\-]{40}"),
    ("contentful-token", ("CF",), r"CFPAT-[\w\-]{43}"),
    ("airtable-token", ("pa",), r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _B),
    ("pinecone-key", ("pc",), r"pcsk_[\w]{50,}"),
    ("razorpay-key", ("rz",), r"rzp_(?:live|test)_[A-Za-z0-9]{14}" + _B),
    ("plaid-token", ("ac",), r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
                             r"[0-9a-f]{4}-[0-9a-f]{12}" + _B),
    ("dropbox-token", ("sl",), r"sl\.[\w\-=]{130,}"),
    ("twitter-token", ("AA",), r"A{22}[A-Za-z0-9%]{80,}"),
    ("firebase-key", ("AA",), r"AAAA[\w\-]{7}:[\w\-]{140}"),
    ("discord-token", ("M", "N", "O"), r"[MNO][A-Za-z\d]{23,25}\.[\w\-]{6}\.[\w\-]{27,38}" + _B),
    ("gocardless-token", ("li",), r"live_[\w\-=]{40}" + _B),
    ("coinbase-key", ("or",), r"organizations/[0-9a-f\-]{36}/apiKeys/[0-9a-f\-]{36}"),
]
# Shapes with no fixed head, or holding characters a run does not (``/``, ``:``, ``$``): found around a literal
# (str.find, then the pattern from ``back`` characters before it to ``fwd`` after it, or to the end of the text
# for a private key cut before its END line): (kind, literal, back, fwd, pattern).
_LITERAL: list[tuple[str, str, int, int | None, re.Pattern[str]]] = [
    ("private-key", "PRIVATE KEY", 80, None, re.compile(
        r"-----BEGIN[ A-Z0-9_\-]{0,60}PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END[ A-Z0-9_\-]{0,60}PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S)),
    ("slack-webhook", "hooks.slack.com", 8, 300, re.compile(r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|"
                                                       r"triggers)/[A-Za-z0-9+/_\-]+")),
    ("discord-webhook", "/api/webhooks/", 40, 300, re.compile(r"(?:https?://)?(?:[\w\-]+\.)?discord(?:app)?\.com/api/"
                                                         r"webhooks/\d+/[\w\-]+")),
    ("teams-webhook", "webhook.office.com", 80, 600, re.compile(
        r"(?:https?://)?[\w\-]+\.webhook\.office\.com/webhookb2/[^\s\"'<>]+")),
    ("zapier-webhook", "hooks.zapier.com", 8, 120, re.compile(
        r"(?:https?://)?hooks\.zapier\.com/hooks/catch/\d+/\w+/?")),
    ("telegram-token", ":AA", 10, 50, re.compile(r"(?<![A-Za-z0-9])\d{8,10}:AA[\w\-]{33}" + _B)),
    ("braintree-token", "$production$", 12, 80, re.compile(r"access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}")),
    ("azure-secret", "Q~", 4, 40, re.compile(r"(?<![\w~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![\w~.\-])")),
    ("mailchimp-key", "-us", 32, 8, re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}" + _B)),
    ("terraform-token", ".atlasv1.", 14, 90, re.compile(r"(?<![A-Za-z0-9])[a-z0-9]{14}\.atlasv1\.[\w\-=]{60,70}")),
    ("maxmind-key", "_mmk", 36, 8, re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk" + _B)),
]

# Every open-ended repeat is capped: a run of a million key characters costs a bounded scan per start, not the
# rest of the run (a log is untrusted: its text must not make capture quadratic).
_PROVIDERS = [(kind, heads, re.sub(r"\{(\d+),\}", r"{\1,1024}", pattern)) for kind, heads, pattern in _PROVIDERS]
_KIND_OF_GROUP = {f"p{i}": kind for i, (kind, _, _) in enumerate(_PROVIDERS)}
# The rules of each head, as one alternation: a run is tried only against the shapes its head allows.
_BY_HEAD: dict[str, re.Pattern[str]] = {
    head: re.compile("|".join(f"(?P<p{i}>{pattern})" for i, (_, heads, pattern) in enumerate(_PROVIDERS)
                              if head in heads))
    for head in {head for _, heads, _ in _PROVIDERS for head in heads}}
_ANY_LITERAL_RE = re.compile("|".join(re.escape(literal) for _, literal, _, _, _ in _LITERAL))
#: Every kind a provider rule reports (the name rules add ``password``, ``secret``, ``authorization`` and
#: ``url-password``; a split key is ``split``).
KINDS = tuple(sorted({kind for kind, _, _ in _PROVIDERS}
                     | {kind for kind, _, _, _, _ in _LITERAL}))
# A token-like run: where a provider key can start (its parts after "-", "_", "." too).
_RUN_CHARS = r"A-Za-z0-9_\-.~"
_RUN_RE = re.compile(rf"(?<![{_RUN_CHARS}])[A-Za-z0-9][{_RUN_CHARS}]{{14,}}")
_FIRSTS = sorted({head[0] for head in _BY_HEAD})
_INNER_HEAD_RE = re.compile(r"[\-_.](?=" + "|".join(
    re.escape(first) + ("" if first in _BY_HEAD else
                        "[" + "".join(sorted(re.escape(h[1]) for h in _BY_HEAD if h[0] == first)) + "]")
    for first in _FIRSTS) + ")")

# -- a value next to a secret-ish name -------------------------------------------------------------------------

# Where a name rule may start: a secret-ish word (inside a longer name too), an auth scheme, curl's -u. Searched
# in the lowered text (a case-insensitive alternation costs several times as much).
_KEYWORDS = ("pass", "pwd", "secret", "token", "key", "auth", "credential", "creds", "signature", "sig=", "bearer",
             "basic", "-u", "--user")
_KEYWORD_RE = re.compile("|".join(map(re.escape, _KEYWORDS)))
# The name around a secret-ish word: the characters of an identifier, a dotted path, a header or a flag.
_NAME_BEFORE_RE = re.compile(r"[A-Za-z0-9_.\-]*\Z")
_NAME_AFTER_RE = re.compile(r"[A-Za-z0-9_.\-]{0,40}")
_SEGMENT_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Names whose value may be a memorable word: a password is not random.
_PASSWORD_RE = re.compile(r"(?:\w*(?:password|passwd|passphrase|secret|credential)s?|creds|pwd|\w{0,6}pass|"
                          r"(?:db|my|pg|sql|user|admin|root)pwd)")
_PASS_WORD_RE = re.compile(r"(?i)pass|pwd")  # the kind a password-like name's value is reported as
_NOT_PASS = frozenset({"bypass", "compass", "surpass", "encompass", "trespass", "overpass", "underpass",
                       "multipass", "onepass", "firstpass", "secretary", "secretaries"})
# Names whose value counts only when it looks random.
_TOKEN_WORDS = frozenset({"token", "tokens", "key", "keys", "apikey", "auth", "authkey", "authtoken", "accesstoken",
                          "accesskey", "secretkey", "privatekey", "masterkey", "signingkey", "encryptionkey",
                          "licensekey", "clientkey", "serverkey", "appkey", "sessionkey", "sshkey", "authorization",
                          "signature", "sig", "bearer", "refreshtoken", "idtoken", "apitoken", "bottoken"})
# ...unless the name is about the secret rather than holding it (``token_count``, ``max_tokens``, ``key_id``).
_NOT_SECRET_TAILS = frozenset({
    "id", "ids", "name", "names", "length", "len", "size", "count", "counts", "type", "types", "file", "files",
    "path", "paths", "dir", "url", "uri", "endpoint", "limit", "limits", "max", "min", "expires", "expiry",
    "expiration", "ttl", "date", "time", "timestamp", "day", "prefix", "header", "field", "env", "var", "hint", "format", "kind", "mode", "label",
    "version", "at", "usage", "budget", "used", "total", "index", "idx", "pos", "start", "end", "list", "map",
    "set", "num", "number", "counter", "cache", "manager", "provider", "service", "handler", "class", "factory",
    "regex", "pattern", "policy", "rotation", "location", "store", "storage", "source", "ref", "reset", "page",
    "form", "prompt", "input", "error", "errors", "required", "enabled", "valid", "strength", "window", "stream",
    "estimate", "estimator", "ratio", "rate", "spent", "left", "remaining", "hdr", "headers", "state", "status"})
_NOT_SECRET_HEADS = frozenset({"max", "min", "num", "n", "total", "count", "is", "has", "use", "enable", "disable",
                               "show", "require", "requires", "no", "skip", "allow", "validate", "check", "public",
                               "pub", "primary", "foreign", "sort", "partition", "hash", "cache", "dict",
                               "lookup", "hot", "short", "shortcut", "idempotency", "forgot", "reset"})
_NOT_SECRET_BEFORE_KEY = frozenset({"public", "pub", "primary", "foreign", "sort", "partition", "hash", "cache",
                                    "dict", "map", "lookup", "hot", "short", "idempotency", "row",
                                    "sorting", "group", "react", "unique", "composite", "natural", "surrogate"})
_AFTER_NAME_RE = re.compile(r"(?P<q>[\"'`]?)(?P<sep>[ \t]*(?::=|=>|==?|:|->)[ \t]*|[ \t]+(?:is|was|are)[ \t]+|[ \t]+)")
_VALUE_RE = re.compile(r"\"(?P<dq>[^\"\n]{1,400})\"|'(?P<sq>[^'\n]{1,400})'|`(?P<bq>[^`\n]{1,400})`|"
                       r"(?P<bare>[^\s\"'`,;&<>(){}\[\]|\\]{1,400})")
_AUTH_VALUE_RE = re.compile(r"[ \t]{1,8}(?P<value>[A-Za-z0-9._~+/\-]{8,4096}={0,3})")
_CURL_USER_RE = re.compile(r"[ =]+[\"']?[^\s:\"'@]{1,64}:(?P<value>[^\s\"'@]{3,200})")
# Values that name a secret without being one.
_PLACEHOLDER_RE = re.compile(
    r"(?i)\*+|x{3,}|\.{3}|…|<[^>]*>|\$.*|%\w+%|\{\{.*\}\}|\{.*\}|none|null|nil|true|false|undefined|required|"
    r"optional|redacted|changeme|change_me|example|string|str|int|bytes|env|todo|tbd|\[redacted[^\]]*\]?|"
    r"(?:your|my|not|see)[A-Za-z_\-]*|secret|password|token|hidden|masked|empty|unset|yes|no|on|off|\(.*|:\w+:.*|"
    r".*%(?:\([\w.]*\))?[sdr]\b.*")  # the last: a format string
_NO_ALNUM_RE = re.compile(r"[^A-Za-z0-9]*")  # "****/**/**", ":****": a mask
_PATH_RE = re.compile(r"(?:/|~/|\.\.?/|[A-Za-z]:\\|\\\\)")
_DOTTED_RE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
_WORD_RE = re.compile(r"[A-Za-z_]+")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIGIT_RE = re.compile(r"\d")
_SPACE_RE = re.compile(r"\s")
# Identifiers: snake_case, CONSTANT_CASE, camelCase and CamelCase with acronyms and digits (PKCS7PrivateKey,
# md5WithRSAEncryption; at least one Capitalized word, so random upper-case keys are not taken for one), @names.
_IDENT_RE = re.compile(r"_*(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)\d{0,2}(?:_+(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)\d{0,2})*_*|[a-z]+\d*(?:_(?:[a-z]+\d*|\d+))+|"
                       r"(?>[A-Z]+\d*)+(?:_(?:(?>[A-Z]+\d*)+|\d+))+|@[A-Za-z_]\w*|"
                       r"(?=.*[A-Z][a-z])[a-z]*\d*(?:(?>[A-Z]{2,}(?=[A-Z][a-z]))|(?>[A-Z]+(?![A-Za-z]))|"
                       r"(?>[A-Z][a-z]+)|\d+)+")
_NOT_RANDOM_RE = re.compile(
    r"v?\d+(?:\.\d+)+(?:[\-+][\w.\-]*)?|\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+\-]\d{2}:?\d{2})?)?|"
    r"\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?|#?[0-9a-fA-F]{3,8}|"
    r"(?:[A-Z]?[a-z]+|[A-Z]+|\d+)\d*(?:[\-_.](?:[A-Z]?[a-z]+|[A-Z]+|\d+)\d*)+")
# A part of a path: a word, a camelCase or dotted name, a file name (a key's parts are not).
_WORDISH_RE = re.compile(r"(?:[a-z]+|[A-Z][a-z]+)(?:[A-Z][a-z]+)*(?:[.\-_](?:[a-z]+|[A-Z][a-z]+)(?:[A-Z][a-z]+)*)*"
                         r"|[\w\-]+\.[a-z]{1,4}")
# A list, a sentence, a call, a keyword argument, a glob: never in a generated key.
_CODE_CHARS_RE = re.compile(r"[|,; :()\[\]{}\"'`]|\w=\w|^\*|\*$|[/.]\*")
# A value that names what it is (challengePassword, role-secret-key, FORCE_CHANGE_PASSWORD) is a label.
_LABEL_RE = re.compile(r"(?i)passw(?:or)?d|secret|token|credential")


_CLOGC = [0.0] + [c * math.log2(c) for c in range(1, 1025)]  # c·log2(c): Shannon entropy without a loop in Python


def _entropy(text: str) -> float:
    """Bits per character of ``text`` (of its first 1,024 characters)."""
    text = text[:1024]
    n = len(text)
    return (_CLOGC[n] - sum(map(_CLOGC.__getitem__, Counter(text).values()))) / n


def _pathlike(value: str) -> bool:
    """A relative path or a URL's path: most of its parts are words or names, where a key's are not."""
    if "/" not in value:
        return False
    parts = [p for p in value.split("/") if p]
    return not parts or 2 * sum(1 for p in parts if _WORDISH_RE.fullmatch(p)) >= len(parts)


def _looks_random(value: str, *, strong: bool = False) -> bool:
    """True when ``value`` looks like a generated credential rather than a word, a number or an identifier."""
    n = len(value)
    if n < (16 if strong else 8) or _NOT_RANDOM_RE.fullmatch(value) or _IDENT_RE.fullmatch(value) \
            or _DOTTED_RE.fullmatch(value):
        return False
    if value.isdigit():
        return n >= 16
    entropy = _entropy(value)
    if (_CODE_CHARS_RE.search(value.rstrip("=")) and (n < 32 or entropy < 4.3)) or _pathlike(value):
        return False  # code or a path (a long key of symbols, Django's, may hold any of them)
    lower, upper = value != value.upper(), value != value.lower()
    digit = _DIGIT_RE.search(value) is not None
    classes = lower + upper + digit
    if classes < 2:
        return n >= 24 and entropy >= 4.0
    if strong:
        return entropy >= 3.5 and (digit or (lower and upper and n >= 24))
    return entropy >= (3.0 if n < 16 else 3.3)


def _name_level(name: str) -> int:
    """0: not a secret's name; 1: a token-like name (random values only); 2: a password-like name."""
    segments = [s.lower() for s in _SEGMENT_RE.findall(name)]
    if not segments or segments[-1] in _NOT_SECRET_TAILS or segments[0] in _NOT_SECRET_HEADS:
        return 0
    level = 0
    for index, segment in enumerate(segments):
        if segment in _NOT_PASS:
            continue
        if _PASSWORD_RE.fullmatch(segment):
            return 2
        if segment in _TOKEN_WORDS:
            if segment in ("key", "keys") and index and segments[index - 1] in _NOT_SECRET_BEFORE_KEY:
                continue
            level = 1
        elif segment.startswith("token") and not segment.startswith("tokeniz"):
            level = 1
    return level


def _plain(value: str) -> bool:
    """A value that says where a secret is (a placeholder, a path, a URL) rather than being one."""
    return bool(_PLACEHOLDER_RE.fullmatch(value) or _PATH_RE.match(value) or "://" in value
                or _NO_ALNUM_RE.fullmatch(value))


def _named_value(text: str, at: int, stop: int, level: int, flag: bool, strict: bool,
                 known: set[int]) -> tuple[int, int, bool]:
    """The value after a secret-ish name ending at ``at``: ``(start, end, secret?)`` (``start == end``: none).

    A value where a provider key starts (``known``) is that key: found already, not judged again.
    """
    after = _AFTER_NAME_RE.match(text, at, stop)
    value_m = _VALUE_RE.match(text, after.end(), stop) if after is not None else None
    if after is None or value_m is None:
        return at, at, False
    sep = after.group("sep").strip()
    group = value_m.lastgroup or "bare"
    quoted = group != "bare"
    value = value_m.group(group)
    start, end = value_m.span(group)
    if start in known:
        return start, end, False
    if not quoted:
        trimmed = value.rstrip(".:")  # the end of a sentence, not of the value
        end -= len(value) - len(trimmed)
        value = trimmed
    spaced = after.group("sep").startswith((" ", "\t")) and after.group("sep").endswith((" ", "\t"))
    return start, end, _secret_value(value, quoted, sep, level, flag, strict,
                                     text[value_m.end():value_m.end() + 1] in ("(", "["), spaced)


def _label(value: str) -> bool:
    """A word or a name rather than a key: letters only and short or shaped like a name, or naming a secret."""
    named = _IDENT_RE.fullmatch(value) or _NOT_RANDOM_RE.fullmatch(value)
    return bool((_WORD_RE.fullmatch(value) and (len(value) < 16 or named))
                or (_LABEL_RE.search(value) and (len(value) < 24 or named)))


def _secret_value(value: str, quoted: bool, sep: str, level: int, flag: bool, strict: bool, called: bool,
                  spaced: bool = False) -> bool:
    """Whether ``value``, after a name of ``level`` and separator ``sep``, is a secret rather than code or prose."""
    if not value or _plain(value) or _pathlike(value) or _label(value) or (flag and value.startswith("-")):
        return False  # a placeholder, a path, a URL, a word, a label; after a flag, the next flag
    if not quoted and called and not flag:
        return False  # a call or an index: code, not a value
    if not sep and not flag:  # "secret wJalr…": only what could be nothing but a key
        return _looks_random(value, strong=True)
    if not flag and (_DOTTED_RE.fullmatch(value) or (not quoted and sep in ("=", ":=") and spaced
                                                     and _NAME_RE.fullmatch(value))):
        return False  # a dotted name (an attribute, a config key), or a variable assigned in code (x = other_name)
    if quoted and _SPACE_RE.search(value):
        return False  # a label or a sentence
    if level == 2 or flag:
        return not (strict and (len(value) < 8 or value.isalpha())) and len(value) >= 4
    if value.isdigit() and len(value) < 16:
        return False  # max_tokens=512: a count
    return _looks_random(value)


def _keyword_hits(text: str) -> list[tuple[int, str]]:
    """Where each secret-ish word starts in ASCII ``text``, in order (the word lowered)."""
    return [(m.start(), m.group().rstrip("=")) for m in _KEYWORD_RE.finditer(text.lower())]


def _find_named(text: str, strict: bool, found: list[Secret]) -> None:
    """The values of secret-ish names, auth headers and curl's ``-u user:pw`` (the names stay)."""
    n = len(text)
    skip_to = 0
    known = {secret.start for secret in found}  # the provider keys found so far
    for begin, word in _keyword_hits(text):
        end = begin + len(word)
        if begin < skip_to:
            continue
        if word in ("-u", "--user"):
            glued = begin and (text[begin - 1].isalnum() or text[begin - 1] in "_-")
            if glued or text[end:end + 1] not in (" ", "="):
                continue
            m = _CURL_USER_RE.match(text, end)
            if m and not _plain(m.group("value")) and not _URL_PLACEHOLDER_RE.fullmatch(m.group("value")):
                found.append(Secret("password", m.start("value"), m.end("value")))
            continue
        before, after = _NAME_BEFORE_RE.search(text, max(0, begin - 40), begin), _NAME_AFTER_RE.match(text, end)
        begin, end = (before.start() if before else begin), (after.end() if after else end)
        skip_to = end
        name = text[begin:end]
        stripped = name.strip("-")
        if word in ("bearer", "basic") and stripped.lower() == word:
            m = _AUTH_VALUE_RE.match(text, end)
            if m:
                value = m.group("value")
                if not _plain(value) and not _IDENT_RE.fullmatch(value) and (
                        _looks_random(value) or (word == "basic" and len(value) >= 12 and value.endswith("="))):
                    found.append(Secret("authorization", m.start("value"), m.end("value")))
            continue
        level = _name_level(stripped)
        if not level or (begin and text[begin - 1] == ":"):
            continue  # not a secret's name; a part of a colon path (arn:aws:…:secret:name, AWS::ApiGateway::ApiKey)
        flag = name.startswith("-") and len(stripped) > 1 and (not begin or text[begin - 1] in " \t\n\"'=([")
        start, stop, secret = _named_value(text, end, min(n, end + 500), level, flag, strict, known)
        if secret:
            found.append(Secret("password" if level == 2 and _PASS_WORD_RE.search(stripped) else "secret", start, stop))
        if stop - start > 16:  # a name inside a long value just judged is part of it (key=key=key…)
            skip_to = max(skip_to, stop)


# -- URLs with credentials --------------------------------------------------------------------------------------

_URL_AFTER_RE = re.compile(r"://(?P<user>[^\s:/@\"'<>]{0,200})(?::(?P<value>[^\s@/\"'<>]{1,200}))?@")


_URL_PLACEHOLDER_RE = re.compile(r"(?i)pass(?:wd|word)?|pwd|pw|secret|foo|bar|baz|test")  # user:pass@host


def _urls(text: str) -> list[re.Match[str]]:
    """Each URL with a user part, found from its "://" (a scan from every letter would be quadratic on a long word)."""
    out = []
    at = text.find("://")
    while at != -1:
        m = _URL_AFTER_RE.match(text, at, at + 410) if at and text[at - 1].isalnum() else None
        if m is not None:
            out.append(m)
        at = text.find("://", at + 3)
    return out


def _find_urls(text: str, found: list[Secret]) -> None:
    for m in _urls(text):
        value = m.group("value")
        if value is not None:
            if not _plain(value) and not _URL_PLACEHOLDER_RE.fullmatch(value):
                found.append(Secret("url-password", m.start("value"), m.end("value")))
        elif len(m.group("user")) >= 24 and _looks_random(m.group("user")):  # a key as the user (Sentry DSN)
            found.append(Secret("url-password", m.start("user"), m.end("user")))


# -- the detector -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Secret:
    """One secret found: its kind and where it is (``start``/``end`` offsets into the text)."""

    kind: str
    start: int
    end: int


def _provider_at(text: str, at: int) -> Secret | None:
    """The provider key starting at ``at``, if its head is one's."""
    for head in (text[at:at + 2], text[at]):
        pattern = _BY_HEAD.get(head)
        m = pattern.match(text, at) if pattern is not None else None
        if m is not None and m.lastgroup is not None:
            return Secret(_KIND_OF_GROUP[m.lastgroup], at, m.end())
    return None


def _find_providers(text: str, found: list[Secret]) -> None:
    heads = _BY_HEAD
    covered = 0
    for run in _RUN_RE.finditer(text):
        at = run.start()
        if text[at:at + 2] in heads or text[at] in heads:
            secret = _provider_at(text, at)
            if secret is not None:
                found.append(secret)
    for sep in _INNER_HEAD_RE.finditer(text):  # a key glued to a word by "-", "_" or "." (fix-ghp_…)
        if sep.end() < covered:
            continue  # inside a key already found
        secret = _provider_at(text, sep.end())
        if secret is not None:
            found.append(secret)
            covered = secret.end
    if _ANY_LITERAL_RE.search(text) is None:
        return
    for kind, literal, back, fwd, pattern in _LITERAL:
        at = text.find(literal)
        while at != -1:
            window = pattern.finditer(text, max(0, at - back)) if fwd is None else \
                pattern.finditer(text, max(0, at - back), at + len(literal) + fwd)
            end = at + 1
            for m in window:
                found.append(Secret(kind, m.start(), m.end()))
                end = max(end, m.end())
                if fwd is None:
                    break
            else:
                if fwd is None:
                    break  # searched to the end of the text: no later occurrence can match either
            at = text.find(literal, end)


def find_secrets(text: str, *, strict: bool = False) -> list[Secret]:
    """Every secret-looking span of ``text``, in order, overlaps merged.

    ``strict`` (lint) counts a password-like value (``password=…``) only
    when it looks like a credential -- eight characters or more, not a
    plain word -- since a finding is an error a person must act on, where
    capture redacts anything that might be one.
    """
    found: list[Secret] = []
    # Every rule is ASCII: scan an ASCII shadow of the text (one "?" per other character, so every offset holds).
    # It keeps the scans on their fast path and lowering from changing the length ("İ" lowers to two).
    scan = text if text.isascii() else text.encode("ascii", "replace").decode("ascii")
    _find_providers(scan, found)
    if "://" in scan and "@" in scan:
        _find_urls(scan, found)
    _find_named(scan, strict, found)
    if not found:
        return found
    found.sort(key=lambda s: (s.start, -s.end))
    merged: list[Secret] = []
    for secret in found:
        if merged and secret.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Secret(last.kind, last.start, max(last.end, secret.end))
        else:
            merged.append(secret)
    return merged


def may_hold_secret(text: str) -> bool:
    """False when ``text`` certainly holds no secret :func:`find_secrets` would find (lint asks it of whole files)."""
    return bool(find_secrets(text))


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    secrets = find_secrets(text)
    if not secrets:
        return text
    out: list[str] = []
    at = 0
    for secret in secrets:
        out.append(text[at:secret.start])
        out.append(f"[REDACTED:{secret.kind}]")
        at = secret.end
    out.append(text[at:])
    return "".join(out)


def redact_joined(parts: Sequence[str], sep: str = "\n") -> str:
    """``sep.join(parts)``, redacted where a secret spans two parts (a key split over content blocks).

    One part is returned as it is: whatever is kept of it is redacted later
    (the card redacts each field), and redacting every message of a long
    log up front would cost more than the capture itself.

    The parts are looked at joined without a separator too; a secret found
    there that crosses a part boundary redacts the pieces on both sides.
    """
    if len(parts) < 2:
        return sep.join(parts)  # nothing to join: the card redacts what it keeps
    glued = "".join(parts)
    bounds: list[int] = []
    at = 0
    for part in parts:
        at += len(part)
        bounds.append(at)
    cuts: list[list[tuple[int, int]]] = [[] for _ in parts]
    for secret in find_secrets(glued):
        begin = 0
        for index, end in enumerate(bounds):
            lo, hi = max(secret.start, begin), min(secret.end, end)
            crosses = secret.start < begin or secret.end > end
            if lo < hi and crosses:
                cuts[index].append((lo - begin, hi - begin))
            begin = end
    pieces = []
    for part, spans in zip(parts, cuts):
        for lo, hi in sorted(spans, reverse=True):
            part = part[:lo] + "[REDACTED:split]" + part[hi:]
        pieces.append(redact(part))
    return redact(sep.join(pieces))

"""Error-message normalisation: two occurrences of the same error map to the same pattern.

:func:`normalize_error` is pure and deterministic. It replaces the details that
vary between occurrences with placeholders and keeps what identifies the error:

================================  ==============================  =========================
what varies                       example                         becomes
================================  ==============================  =========================
ANSI colour codes                 ``\\x1b[31m``                   (removed)
URLs                              ``https://h.io/v1/x?a=1``       ``https://h.io/<path>?<query>``
e-mail addresses                  ``bob@example.com``             ``<email>``
UUIDs                             ``727a64ea-20c3-...``           ``<uuid>``
timestamps (ISO, log, syslog)     ``2024-01-02T03:04:05Z``        ``<ts>``
API keys                          ``sk-proj-****21sA``            ``<key>``
request/org/user/... ids          ``req_011CcLPr...``, ``org-Yu8``  ``<id>``
IPv6 / IPv4 addresses             ``::1``, ``10.0.0.5``           ``<ip>``
host:port                         ``db-1.internal:5432``          ``<host>:<port>``
bare ports                        ``:8080``, ``port=80``          ``:<port>``, ``port=<port>``
memory addresses, hex literals    ``0x7f5aee6bae80``              ``<hex>``
hashes / hex ids (8+ chars)       ``4cfd579e``                    ``<hex>``
long random tokens (16+ chars)    ``nvIRrxReD45ZBGxF...``         ``<id>``
file paths (POSIX and Windows)    ``/home/u/a.py``, ``C:\\x\\y``  ``<path>``
line / column numbers             ``line 12``, ``a.js:10:4``      ``line <n>``, ``a.js:<line>``
durations                         ``20s``, ``1.5 seconds``        ``<duration>``
sizes                             ``8.13 GiB``                    ``<size>``
other numbers                     ``4097 tokens``                 ``<n> tokens``
================================  ==============================  =========================

Kept as they are: exception types, error codes (``Errno 111``, ``ERROR 1045``,
``code 1``, ``exit status 128``), HTTP statuses (any 4xx/5xx number), quoted
names (``No module named 'torch'``), tool names, and numbers glued to words
(``gpt-4``, ``utf-8``, ``python3.11``). Whitespace and line wrapping collapse to
single spaces; consecutive duplicate lines are dropped.

:func:`signature` turns a (long) pattern into the short text that is embedded:
stack-frame lines are dropped so the lines that name the error survive the
embedding model's 256-token window.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

__all__ = [
    "bound_error_text",
    "mask_variables",
    "normalize_error",
    "pattern_and_signature",
    "signature",
    "ERROR_MAX_CHARS",
    "PATTERN_MAX_CHARS",
    "SIGNATURE_MAX_CHARS",
]

PATTERN_MAX_CHARS = 2000
SIGNATURE_MAX_CHARS = 600
# Default of ``[learning] error_max_chars``: what of an error message is kept before anything else
# looks at it. Its head (two thirds) holds the first PATTERN_MAX_CHARS the pattern (the node id) and the
# stored example are made of; its tail (a third, ~1,000 characters) the last lines, where a traceback
# names its exception. Every character kept costs normalising and categorising time on a first sighting.
ERROR_MAX_CHARS = 3072
# What stands for the cut-out middle: a line the core extractor and signature() read as an elided
# stretch of stack frames (Java's "... 23 more"), so it never becomes part of an error's core.
_ELISION = "\n... more\n"
_BLOCK_START = re.compile(r"\n(?=\S|[ \t]*(?:File \"|at\s))")
_LINE_START = re.compile(r"\n")

_I = re.IGNORECASE
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,15}://[^\s'\"<>()\[\]{}`]*", _I)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b", _I)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", _I)
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
_TIMESTAMPS = [
    # ISO 8601 date-time (T or space), optional fraction and zone
    re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2}|\s?UTC)?\b"),
    # Apache/nginx common log: 10/Oct/2000:13:55:36 -0700
    re.compile(rf"\b\d{{2}}/{_MONTH}/\d{{4}}:\d{{2}}:\d{{2}}:\d{{2}}(?:\s[+-]\d{{4}})?"),
    # ctime / syslog: Mon Jan  2 15:04:05 2006, Oct 10 13:55:36
    re.compile(
        rf"\b(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?\s+)?{_MONTH}\s+\d{{1,2}}\s+\d{{2}}:\d{{2}}:\d{{2}}(?:\s+\d{{4}})?"
    ),
    # dates alone: 2024-01-02, 2024/01/02
    re.compile(r"\b\d{4}[-/]\d{2}[-/]\d{2}\b"),
    # times alone: 13:55:36(.123)
    re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"),
]
_API_KEY = re.compile(r"\b(?:sk|pk|rk)-(?:proj-|ant-|live-|test-)?[A-Za-z0-9*_.-]{4,}")
_PREFIXED_ID = re.compile(
    r"\b(?:org|req|request|user|usr|sess|session|msg|run|call|chatcmpl|cus|sub|txn|trace|span|acct|proj|batch|thread|asst|file)"
    r"[-_][A-Za-z0-9]{6,}\b",
)
_KEYED_ID = re.compile(r"\b((?:x-)?(?:request|trace|correlation|span)[-_ ]?id)(\W{1,3})[\w-]{6,}", _I)
_IPV6 = re.compile(r"(?<![\w:.])(?=[0-9a-f:]*\d)(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?![\w:])", _I)
_IPV4 = re.compile(r"(?<![\w.=])(?:\d{1,3}\.){3}\d{1,3}(?:/\d{1,2})?(?![\w.])")
_HOST_PORT = re.compile(r"(?<![\w.:/-])(?:localhost|(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,})(?=:\d{1,5}\b)", _I)
_QUOTED_HOST = re.compile(r"\b((?:host(?:name)?|server at|on host)\s*[:=]?\s*)(['\"])[^'\"]*\2", _I)
_PORT_WORD = re.compile(r"\b(port)(\s*[:=]?\s*)\d{1,5}\b", _I)
_SRC_LINE = re.compile(
    r"\b([\w-]+\.(?:py|pyx|js|mjs|cjs|ts|tsx|jsx|java|kt|go|rs|rb|c|cc|cpp|h|hpp|cs|php|scala|swift|lua|ex|exs))(?::\d+){1,2}\b"
)
_BARE_PORT = re.compile(r"(?<=[\w>\]]):\d{2,5}\b")
_HEX_LITERAL = re.compile(r"\b0x[0-9a-f]+\b", _I)
_HEX_ID = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b", _I)
_RANDOM_TOKEN = re.compile(r"\b(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{16,}\b")
_WIN_PATH = re.compile(r"(?<![\w])(?:[A-Za-z]:|\\\\[\w.$-]+)(?:\\{1,2}[^\\\s'\"<>|:*?,()]+)+\\{0,2}")
_POSIX_PATH = re.compile(r"(?<![\w.:/<>\\-])(?:~|\.{1,2})?/[\w.@+~%=-]+(?:/[\w.@+~%=-]*)*")
_REL_PATH = re.compile(r"(?<![\w./<-])[\w.@+-]+(?:/[\w.@+-]+)+\.[A-Za-z][\w]{0,7}\b")
_PATH_LINE = re.compile(r"<path>(?::\d+){1,2}\b")
_PATH_QUERY = re.compile(r"<path>\?\S+")
_LINE_COL = re.compile(r"(?<=[\w>)\]]):\d+:\d+\b")
_URL_MARK, _URL_END = "\ue000", "\ue001"
_URL_SLOT = re.compile("\ue000([a-z]+)\ue001")
_LINE_WORDS = re.compile(r"\b(line|lines|column|col|position|pos|char|offset|row)(\s*[:#]?\s*)\d+", _I)
_DURATION = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|msec|millis(?:econds?)?|us|µs|ns|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?)\b"
)
_SIZE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?(?:[KMGTP]i?B|[kKMGT]b|bytes?|B)\b")
_KEEP_BEFORE = re.compile(
    r"(?:errno|error|err|code|status|exit(?:\s+(?:code|status))?|signal|http(?:/\d(?:\.\d)?)?|winerror|rc|returncode|sqlstate)"
    r"[\s:=#(\[]*-?$",
    _I,
)
_NUMBER = re.compile(r"(?<![\w.<>/-])\d+(?:[.,]\d+)*(?![\w>])")
_HTTP_STATUS = re.compile(r"[45]\d\d")
_SPACES = re.compile(r"\s+")

# What signature() leaves out besides frames: URLs, timestamps, separators.
_SIG_NOISE = re.compile(r"\b[a-z][a-z0-9+.-]*://\S*|<ts>|[·•]", _I)
# "django.db.utils.OperationalError" -> "OperationalError": the wrapper's module path
# is what varies between occurrences, and the embedding weighs leading tokens heavily.
_QUALIFIED_EXC = re.compile(r"\b(?:[A-Za-z_]\w*\.)+([A-Z]\w*(?:Error|Exception|Warning|Exc))\b")
# A source line printed under a Python frame: code, not an "Error: message" line.
_SOURCE_LINE = re.compile(r"^(?!.*\b\w*(?:Error|Exception|Warning)\b).*$")
# Lines that are stack frames / noise, dropped by signature().
_FRAME = re.compile(
    r"^\s*(?:at\s|File\s\"|Traceback\b|During handling|The above exception|\^+$|~+$|frame\s#|\.\.\."
    r"|\(\d+ additional|Emitted 'error'"
    r"|[│╭╰]|#\d+\s|npm (?:ERR!|error) (?:A complete log|\s*$))"
)


def bound_error_text(message: str, max_chars: int = ERROR_MAX_CHARS) -> str:
    """``message`` if it has at most ``max_chars`` characters; otherwise its head (two thirds) and its
    tail (a third) joined by an elision line, ``max_chars`` characters in all.

    Normalising, core extraction and categorising cost time in proportion to the text (seconds per
    megabyte), while what they keep is at its ends: the pattern and the stored example are the
    message's first 2,000 characters, a traceback names its error on its last lines. The middle of a
    huge message (a build log, a retry loop) decides nothing. The tail starts where a line starts a
    block — an unindented line or a stack frame — when one is near, else at a line start: a cut-off
    line, or the source line a Python frame prints under itself, would read as an error line of its
    own. Idempotent: a bounded text is returned as it is, so every entry point may apply it.
    """
    if len(message) <= max_chars:
        return message
    budget = max(3, max_chars - len(_ELISION))
    head_n = budget - budget // 3
    tail = message[len(message) - budget // 3 :]
    start = _BLOCK_START.search(tail, 0, len(tail) // 2) or _LINE_START.search(tail, 0, len(tail) // 2)
    if start is not None:
        tail = tail[start.end() :]
    return message[:head_n] + _ELISION + tail


def normalize_error(message: str, max_chars: int = PATTERN_MAX_CHARS) -> str:
    """Return the normalised pattern of ``message`` (see the module docstring for the rules).

    Deterministic and pure: the same input always gives the same output.
    """
    return " ".join(_normalized_lines(message))[:max_chars]


def pattern_and_signature(message: str) -> tuple[str, str]:
    """:func:`normalize_error` and :func:`signature` of ``message`` in one pass over the rules."""
    lines = _normalized_lines(message)
    return " ".join(lines)[:PATTERN_MAX_CHARS], _signature_of(lines, SIGNATURE_MAX_CHARS)


def signature(message: str, max_chars: int = SIGNATURE_MAX_CHARS) -> str:
    """The text embedded for ``message``: the lines that name the error, normalised.

    Embedding models read only the first ~256 tokens and are swayed by whatever
    varies, so this drops stack frames and the source lines printed under them
    (a Python traceback names its error on the last line), URLs and timestamps,
    then truncates.
    """
    return _signature_of(_normalized_lines(message), max_chars)


def _signature_of(lines: list[str], max_chars: int) -> str:
    kept: list[str] = []
    after_frame = False
    for line in lines:
        frame = bool(_FRAME.match(line))
        if not frame and not (after_frame and _SOURCE_LINE.match(line)):
            kept.append(line)
        after_frame = frame and line.lstrip().startswith("File ")
    text = " ".join(kept or lines)
    text = _SIG_NOISE.sub(" ", text)
    text = _QUALIFIED_EXC.sub(r"\1", text)
    return _SPACES.sub(" ", text).strip()[:max_chars]


def mask_variables(text: str) -> str:
    """Apply the placeholder rules of the module docstring to ``text``, keeping its line breaks.

    The shared first step of :func:`normalize_error` and :func:`kgmem.learning.templates.template`.
    """
    text = _ANSI.sub("", text)
    urls: list[str] = []

    def stash_url(match: re.Match[str]) -> str:
        urls.append(_normalize_url(match.group(0)))
        return _URL_MARK + _letters(len(urls) - 1) + _URL_END

    text = _URL.sub(stash_url, text)  # protected from the path and number rules below
    text = _EMAIL.sub("<email>", text)
    text = _UUID.sub("<uuid>", text)
    for rule in _TIMESTAMPS:
        text = rule.sub("<ts>", text)
    text = _API_KEY.sub("<key>", text)
    text = _KEYED_ID.sub(r"\1\2<id>", text)
    text = _PREFIXED_ID.sub("<id>", text)
    text = _IPV6.sub("<ip>", text)
    text = _IPV4.sub("<ip>", text)
    text = _SRC_LINE.sub(r"\1:<line>", text)
    text = _QUOTED_HOST.sub(r"\1\2<host>\2", text)
    text = _HOST_PORT.sub("<host>", text)
    text = _PORT_WORD.sub(r"\1\2<port>", text)
    text = _WIN_PATH.sub("<path>", text)
    text = _POSIX_PATH.sub("<path>", text)
    text = _REL_PATH.sub("<path>", text)
    text = _PATH_LINE.sub("<path>:<line>", text)
    text = _PATH_QUERY.sub("<path>?<query>", text)
    text = _HEX_LITERAL.sub("<hex>", text)
    text = _HEX_ID.sub("<hex>", text)
    text = _RANDOM_TOKEN.sub("<id>", text)
    text = _LINE_COL.sub(":<line>", text)
    text = _BARE_PORT.sub(":<port>", text)
    text = _LINE_WORDS.sub(r"\1\2<n>", text)
    text = _DURATION.sub("<duration>", text)
    text = _SIZE.sub("<size>", text)
    text = _replace_numbers(text)
    text = _URL_SLOT.sub(lambda m: urls[_index(m.group(1))], text)
    return text


def _normalized_lines(message: str) -> list[str]:
    text = mask_variables(message)
    # Consecutive duplicate lines (retry loops printing the same line) collapse to one.
    lines: list[str] = []
    for raw in text.splitlines():
        line = _SPACES.sub(" ", raw).strip()
        if line and (not lines or lines[-1] != line):
            lines.append(line)
    return lines


def _letters(i: int) -> str:
    # Placeholder indexes are letters so the number rules cannot touch them.
    out = ""
    while True:
        out = chr(ord("a") + i % 26) + out
        i = i // 26 - 1
        if i < 0:
            return out


def _index(letters: str) -> int:
    i = 0
    for ch in letters:
        i = i * 26 + (ord(ch) - ord("a") + 1)
    return i - 1


def _normalize_url(url: str) -> str:
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # malformed (e.g. "host:xxx"): keep only the scheme
        return url.split("://", 1)[0] + "://<host>"
    if _IPV4.fullmatch(host) or ":" in host:
        host = "<ip>"
    elif not host or "%" in host:
        host = "<host>"
    out = f"{parts.scheme}://{host}"
    if port is not None:
        out += ":<port>"
    if parts.path not in ("", "/"):
        out += "/<path>"
    if parts.query:
        out += "?<query>"
    return out


def _replace_numbers(text: str) -> str:
    def repl(match: re.Match[str]) -> str:
        number = match.group(0)
        if _HTTP_STATUS.fullmatch(number):
            return number
        if _KEEP_BEFORE.search(text[max(0, match.start() - 24) : match.start()]):
            return number
        return "<n>"

    return _NUMBER.sub(repl, text)

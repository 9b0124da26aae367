"""Log-template mining: lines that differ only in variable parts get the same template.

Two levels, both pure and deterministic:

* :func:`template` — stateless, one line at a time (what the learning engine calls online).
  It applies the placeholder rules of :mod:`kgmem.learning.normalize` and then turns every
  variable token into ``<*>``: numbers, ids, hex, paths, IPs, hosts, timestamps, and the
  content of quoted strings (``for user "nfldb"`` and ``for user "postgres"`` give the same
  template). What identifies an error stays: exception classes, error codes after
  ``errno``/``error``/``code``/``status``…, HTTP statuses (4xx/5xx), tool names, words.
* :class:`TemplateMiner` — corpus level, in the spirit of Brain (Yu et al., 2023): lines with the
  same number of tokens are grouped by their *longest common pattern* (the largest set of
  tokens that occur equally often at their positions), and within a group a column whose
  values vary a lot is a variable. That catches variables no regex can see (user names,
  host names made of words) without a per-dataset configuration.

:func:`grouping_accuracy` is the measure of the logparser benchmark (Zhu et al., 2019).
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

# The normaliser's rule for numbers that identify an error (errno 13, ERROR 1045, exit status 1).
from kgmem.learning.normalize import _HTTP_STATUS, _KEEP_BEFORE, mask_variables

__all__ = [
    "WILDCARD",
    "TemplateMiner",
    "grouping_accuracy",
    "template",
    "tokens",
    "has_zero_duration",
    "keep_zero_durations",
    "quoted_names",
]

log = logging.getLogger(__name__)

WILDCARD = "<*>"

# normalize.py's typed placeholders (<ip>, <path>, <n>, ...): all variables alike here, since
# the same slot holds an IP in one line and a host name in the next.
_PLACEHOLDER = re.compile(r"<(?:[a-z]+)>")
# Quoted strings: the value varies, the quotes and the words around it identify the message.
# Not a JSON key ("level": …) and not quoted prose of 3+ words ({"msg":"connection refused by
# upstream"}, msg="failed to pull image"): that is the message itself, not a value in it.
_QUOTED = re.compile(r"""(?<![\w])(['"`])(?:(?!\1)[^\n]){1,200}?\1(?![\w])(?!\s*:)""")
_PROSE = re.compile(r"\S+\s+\S+\s+\S+")
# Digit runs not glued to letters (``-2``, ``part-00590``, ``id=17``): numbers left over by the
# normaliser's rules. Digits inside words (``gpt-4``, ``utf-8``, ``ssh2``) stay.
_DIGITS = re.compile(r"(?<![A-Za-z\d])[+-]?\d+(?![A-Za-z\d])")
# Short hex ids (git short SHAs, Android object hashes ``9f4ef63``); normalize.py takes 8+ chars.
_SHORT_HEX = re.compile(r"(?<![\w-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}(?![\w-])")
# Words with a long digit run (``blk_38865049``, ``appattempt_1445144423722``): ids. Only runs
# glued to a word: a standalone "1045" after ERROR was kept on purpose by the number rule.
_LONG_DIGITS = re.compile(r"(?<=[A-Za-z_])\d{4,}|\d{4,}(?=[A-Za-z_])")
# Runs of wildcards and the punctuation between them collapse: "<*>.<*>:<*>", "<*> (<*>)" and
# "<*> <*> <*>" are one variable of varying length.
_WILDCARD_RUN = re.compile(r"<\*>(?:[ .:,/_-]*(?:<\*>|\(<\*>\)))+")
# host:port with a bare host name (``wpad:80``); the normaliser already made the port <port>.
# Host names are lower case: ``CurrentState:112`` is a key and its value.
_NAME_PORT = re.compile(r"(?<![\w.:/<>-])[a-z0-9][a-z0-9.-]*:<port>")
# An empty bracket or quote pair standing alone is an empty value: "from <ip> ()" and
# "from <ip> (host.example)" are the same message.
_EMPTY_VALUE = re.compile(r"""(?<!\S)(\(\)|\[\]|''|"")(?!\S)""")
# Host names by their top-level domain: a Java package starts with one, a host ends with one.
# Generic TLDs by name; a two-letter country TLD (``.at``, ``.hk``) needs three labels so that
# ``setup.py`` stays a file name.
# Labels may hold the normaliser's placeholders: "62.99.164.82.sh.inode.at" is "<ip>.sh.inode.at" by now.
_LABEL = r"(?:[a-z0-9-]|<[a-z]+>)+\."
_HOSTNAME = re.compile(
    rf"(?<![\w.-])(?:(?:{_LABEL})+(?:com|net|org|edu|gov|mil|int|io|info|biz|local|internal|lan|localdomain|cloud|dev|app)"
    rf"|(?:{_LABEL}){{2,}}[a-z]{{2}})(?![\w.-])",
    re.IGNORECASE,
)
_SPACES = re.compile(r"\s+")
# A zero duration is not a value that varies, it is a setting that disables the wait: "timeout of
# 0ms exceeded" (no timeout configured, fix the client setup) is another error than "timeout of
# 5000ms exceeded" (the server is slow). Zeros are kept through masking under a sentinel word.
_ZERO_DURATION = re.compile(r"(?<![\w.,/-])0 ?(ms|s|sec|secs|seconds|milliseconds)\b")
# GNU-style quotes (`main.c') are the same quoting as 'main.c' (make, older gcc/bash messages).
_GNU_QUOTED = re.compile(r"`([^`'\n]{1,200})'")
_ZERO_SENTINEL = re.compile(r"kgmemzero(ms|s|sec|secs|seconds|milliseconds)\b")
# A bare 4xx/5xx is a status only next to HTTP words; "TID 402" or "core.412" is a counter.
_HTTP_AFTER = re.compile(
    r"^\W{0,3}(?:Bad Request|Unauthori[sz]ed|Payment|Forbidden|Not Found|Method Not|Not Acceptable|Proxy"
    r"|Request Timeout|Conflict|Gone|Length|Precondition|Payload|Too Large|Unsupported|Unprocessable|Locked"
    r"|Too Many|Internal Server|Not Implemented"
    r"|Bad Gateway|Service Unavailable|Gateway Time)",
    re.IGNORECASE,
)
# A quoted value that names one thing (a module, package, command, symbol, database, user): a single token
# of letters, digits, dots, dashes and underscores starting with a letter or underscore. A path, a URL, a
# number, an id, a version or a host is no name here (template() finds a variable inside it, or it has a
# slash or a space).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,99}")
_HTTP_BEFORE = re.compile(r"(?:returned|response|responded|got|received|with status|HTTP\S*)\W{0,3}$", re.IGNORECASE)


def template(line: str, *, mask_quoted: bool = True) -> str:
    """Return the template of ``line``: its variable tokens replaced by ``<*>``.

    Stateless and deterministic; multi-line input is joined into one line. Error codes, HTTP
    statuses (4xx/5xx) and exception classes are kept — they identify the error. With
    ``mask_quoted=False`` quoted strings are kept (``No module named 'torch'`` and ``'numpy'``
    then differ), for callers that weigh the quoted name themselves.
    """
    text = mask_variables(_ZERO_DURATION.sub(r"kgmemzero\1", _GNU_QUOTED.sub(r"'\1'", line)))
    text = _NAME_PORT.sub(WILDCARD, text)
    text = _HOSTNAME.sub(WILDCARD, text)
    if mask_quoted:
        text = _QUOTED.sub(_quoted_value, text)
    text = _EMPTY_VALUE.sub(lambda m: m.group(1)[0] + WILDCARD + m.group(1)[1], text)
    text = _PLACEHOLDER.sub(WILDCARD, text)
    text = _SHORT_HEX.sub(WILDCARD, text)
    text = _DIGITS.sub(lambda m: _number(m, text), text)
    text = _LONG_DIGITS.sub(WILDCARD, text)
    # Twice: an inner run ("(<*>-<*>.<*>)") must collapse before the outer one can see it.
    text = _WILDCARD_RUN.sub(WILDCARD, _WILDCARD_RUN.sub(WILDCARD, text))
    text = _ZERO_SENTINEL.sub(r"0\1", text)
    return _SPACES.sub(" ", text).strip()


def quoted_names(line: str) -> tuple[str, ...]:
    """The quoted values of ``line`` that :func:`template` masks and that are names (``No module named
    'distutils.core'`` → ``("distutils.core",)``), in order.

    The template says *what kind* of error a line states; a quoted name is often *which thing* it is about
    (``No module named 'distutils'`` and ``… 'distutils.core'`` share a template but need other fixes).
    Values that vary between reports of one error whatever the cause — paths, URLs, numbers, ids, hashes,
    versions, hosts, timestamps — are not names: :func:`template` still finds a variable in them.
    """
    names = []
    for found in _QUOTED.finditer(_GNU_QUOTED.sub(r"'\1'", line)):
        inner = found.group(0)[1:-1]
        if _NAME.fullmatch(inner) and template(inner, mask_quoted=False) == inner:
            names.append(inner)
    return tuple(names)


def keep_zero_durations(mask: Callable[[str], str], text: str) -> str:
    """``mask(text)`` with zero durations (``0ms``) left as they are: the pattern of ``timeout of
    0ms exceeded`` must not be the pattern of ``timeout of 5000ms exceeded`` (see _ZERO_DURATION)."""
    return _ZERO_SENTINEL.sub(r"0\1", mask(_ZERO_DURATION.sub(r"kgmemzero\1", text)))


def has_zero_duration(template_text: str) -> bool:
    """Whether a template (of :func:`template`) kept a zero duration (``timeout of 0ms``)."""
    return _ZERO_DURATION.search(template_text) is not None


def _quoted_value(match: re.Match[str]) -> str:
    quote, inner = match.group(1), match.group(0)[1:-1]
    return match.group(0) if _PROSE.search(inner) else quote + WILDCARD + quote


def tokens(line: str) -> list[str]:
    """The whitespace tokens of :func:`template` of ``line``."""
    return template(line).split(" ")


def _number(match: re.Match[str], text: str) -> str:
    before = text[max(0, match.start() - 24) : match.start()]
    if _KEEP_BEFORE.search(before):
        return match.group(0)
    if _HTTP_STATUS.fullmatch(match.group(0)) and (
        _HTTP_BEFORE.search(before) or _HTTP_AFTER.match(text[match.end() : match.end() + 24])
    ):
        return match.group(0)
    return WILDCARD


def grouping_accuracy(truth: Sequence[Hashable], predicted: Sequence[Hashable]) -> float:
    """Share of lines whose predicted group is exactly the set of lines of their true group.

    The grouping accuracy (GA) of the logparser benchmark: a predicted group counts only if all
    its lines have one true event id and it holds every line of that event.
    """
    if len(truth) != len(predicted):
        raise ValueError(f"truth has {len(truth)} labels, predicted {len(predicted)}")
    if not truth:
        return 0.0
    true_size = Counter(truth)
    members: dict[Hashable, list[Hashable]] = defaultdict(list)
    for t, p in zip(truth, predicted):
        members[p].append(t)
    correct = 0
    for labels in members.values():
        first = labels[0]
        if all(label == first for label in labels) and len(labels) == true_size[first]:
            correct += len(labels)
    return correct / len(truth)


@dataclass(frozen=True)
class TemplateMiner:
    """Corpus-level template mining (Brain-style); one configuration for any log.

    Lines are first reduced to :func:`template` tokens. Within lines of equal token count, each
    line's *longest common pattern* (the largest set of its tokens sharing one frequency at their
    positions) picks its initial group. In a group, a column is a variable when it holds at least
    ``min_distinct`` different values, or when at least half its lines already have a variable
    part there (``<*>``) or its values are of one key (``name=…``); otherwise its values are constants and split the
    group. A column holding an error code or HTTP status that :func:`template` kept is never a
    variable. ``min_distinct`` = 5 was chosen on the loghub tuning half (see docs/learning.md).

    Offline: it needs the whole corpus (column statistics). Online, one message at a time, use
    :func:`template`.
    """

    min_distinct: int = 5

    def fit(self, lines: Sequence[str]) -> list[str]:
        """Return the mined template of every line of ``lines`` (same order)."""
        return self.mine([template(line).split(" ") for line in lines])

    def mine(self, toks: Sequence[Sequence[str]]) -> list[str]:
        """:meth:`fit` on lines already split into :func:`tokens`."""
        by_length: dict[int, list[int]] = defaultdict(list)
        for i, t in enumerate(toks):
            by_length[len(t)].append(i)
        out = [""] * len(toks)
        for members in by_length.values():
            for group in self._initial_groups(toks, members):
                for i, words in self._split(toks, group):
                    out[i] = " ".join(words)
        return out

    def _initial_groups(self, toks: Sequence[Sequence[str]], members: list[int]) -> list[list[int]]:
        freq = Counter((p, w) for i in members for p, w in enumerate(toks[i]))
        groups: dict[tuple[tuple[int, str], ...], list[int]] = defaultdict(list)
        for i in members:
            f = [freq[(p, w)] for p, w in enumerate(toks[i])]
            counts = Counter(f)
            # The frequency shared by most tokens; on a tie the rarer, more specific pattern
            # wins, so "program interrupt: illegal instruction" does not hide in "program interrupt:".
            best = max(counts, key=lambda v: (counts[v], -v))
            groups[tuple((p, w) for p, w in enumerate(toks[i]) if f[p] == best)].append(i)
        return list(groups.values())

    def _split(self, toks: Sequence[Sequence[str]], group: list[int]) -> list[tuple[int, list[str]]]:
        width = len(toks[group[0]])
        variable = [self._is_variable([toks[i][p] for i in group]) for p in range(width)]
        return [(i, [WILDCARD if variable[p] else w for p, w in enumerate(toks[i])]) for i in group]

    def _is_variable(self, column: list[str]) -> bool:
        values = set(column)
        if len(values) == 1:
            return False
        if any(_CODE.fullmatch(v) for v in values):
            return False  # error codes / HTTP statuses template() kept: identity, never a variable
        if len(values) >= self.min_distinct:
            return True
        # Few values: a variable if at least half the lines have a variable part there ("rdd_<*>",
        # "broadcast_<*>_piece0"; "chdir(<*>)" x16 and "chdir(pwd)" x2) or the values are of
        # one key ("name=android", "name=audioserver").
        with_wildcard = sum(WILDCARD in v for v in column)
        return 2 * with_wildcard >= len(column) or bool(_KEY_VALUE.match(_common_prefix(sorted(values))))


_CODE = re.compile(r"\W*\d+\W*")
_KEY_VALUE = re.compile(r"^[\w.-]*\w[=:]$")


def _common_prefix(values: list[str]) -> str:
    lo, hi = min(values), max(values)
    n = 0
    while n < len(lo) and lo[n] == hi[n]:
        n += 1
    return lo[:n]

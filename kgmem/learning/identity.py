"""When two linked errors are provably one error: the evidence that lets a borrowed fix act (pure).

A ``SIMILAR_TO`` link says two errors look alike (:mod:`kgmem.learning.matching`); a fix borrowed
over it is auto-applied only when the two are *provably* the same error (docs/learning.md,
"Borrowed fixes: when they auto-apply"). Proof is read from the text alone, so it must hold for
any error, not only the ones it was measured on:

- **the same statements**: the core templates (:mod:`kgmem.learning.templates`) have the same
  lines, compared without what only the rendering changes — letter case, runs of spaces, trailing
  punctuation and closing brackets, surrounding quotes, a leading value (``<*>: invalid x-api-key``);
- **and the same identity keys**: every key either carries (exception class, errno, HTTP status,
  database and vendor codes, service code, port, exit status) is present in both and equal. A key
  one side lacks is no proof: the other side may have raised a generic class, which is no key
  (:data:`kgmem.learning.core.GENERIC_EXCEPTIONS`: ``RuntimeWarning`` vs ``ValueError``), or a layer
  may have dropped another status than the one the first printed.

Not proof, though measured: a statement wrapped by another layer (``PG::ConnectionBad: FATAL:
<statement>`` vs ``<statement>``). On the training half it proved more variants and no look-alike; on
the held-out half it proved look-alikes the same error (docs/learning.md): what a layer prints
before a statement can be the cause. A tail after a statement is another detail (``…, needed by
'x'``), another line another diagnosis (``It was specified as a dependency of 'x'``).

What no text can prove stays a suggestion: two errors with the same statement and keys whose causes
differ outside the message (the tool's state, a source line) are indistinguishable here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kgmem.learning.matching import ErrorText

__all__ = ["same_error", "statement"]

_SPACES = re.compile(r"\s+")
# A value first ("<*>: ", "<*> "): a location, an id or a status a layer printed before the message.
_VALUE_HEAD = re.compile(r"^(?:<\*>[^\w<]*\s)+")
_TRAILING = re.compile(r"[\s.,;:!\])}>]+$")
_LEADING = re.compile(r"^[\s\[({'\"`]+")
_WORDS = re.compile(r"[A-Za-z]{2,}")


def statement(line: str) -> str:
    """One template line without what only its rendering changes (see the module docstring)."""
    text = _SPACES.sub(" ", line).strip()
    text = _VALUE_HEAD.sub("", text)
    text = _TRAILING.sub("", _LEADING.sub("", text))
    return text.strip("'\"` ")


def same_error(a: ErrorText, b: ErrorText) -> bool:
    """Whether ``a`` and ``b`` (core templates and identity keys) are provably one error."""
    if not _keys_agree(a.keys, b.keys):
        return False
    la, lb = [statement(x) for x in a.lines], [statement(y) for y in b.lines]
    if not la or len(la) != len(lb) or not any(_WORDS.search(x) for x in la):
        return False
    return all(_same_statement(x, y) for x, y in zip(la, lb))


def _keys_agree(a: Mapping[str, frozenset[str]], b: Mapping[str, frozenset[str]]) -> bool:
    return dict(a) == dict(b)


def _same_statement(x: str, y: str) -> bool:
    return x.casefold() == y.casefold()

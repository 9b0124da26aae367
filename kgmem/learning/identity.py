"""When two linked errors are provably one error: the evidence that lets a borrowed fix act (pure).

A ``SIMILAR_TO`` link says two errors look alike (:mod:`kgmem.learning.matching`); a fix borrowed
over it is auto-applied only when the two are *provably* the same error (docs/learning.md,
"Borrowed fixes: when they auto-apply"). Proof is read from the text alone, so it must hold for
any error, not only the ones it was measured on:

- **the same core template** (:mod:`kgmem.learning.templates`): the same statements, with only
  values (names, paths, numbers, ids) and wrappers the core leaves out (:mod:`kgmem.learning.core`)
  differing; at least one word in it (a template of values alone proves nothing);
- **and the same identity keys**: every key either carries (exception class, errno, HTTP status,
  database and vendor codes, service code, port, exit status) is present in both and equal. A key
  one side lacks is no proof: the other side may have raised a generic class, which is no key
  (:data:`kgmem.learning.core.GENERIC_EXCEPTIONS`: ``RuntimeWarning`` vs ``ValueError``), or a layer
  may have dropped another status than the one the first printed.

Looser evidence was measured and is not proof (docs/learning.md): the same statement in another
letter case or punctuation, and a statement wrapped by another layer (``PG::ConnectionBad: FATAL:
<statement>``), each proved more look-alikes the same error on unseen data. What no text can prove
stays a suggestion: two errors with the same statement and keys whose causes differ outside the
message (the tool's state, a source line) are indistinguishable here.
"""

from __future__ import annotations

import re

from kgmem.learning.matching import ErrorText

__all__ = ["same_error"]

_WORDS = re.compile(r"[A-Za-z]{2,}")


def same_error(a: ErrorText, b: ErrorText) -> bool:
    """Whether ``a`` and ``b`` (core templates and identity keys) are provably one error."""
    return a.template == b.template and bool(_WORDS.search(a.template)) and dict(a.keys) == dict(b.keys)

"""When two linked errors are provably one error: the evidence that lets a borrowed fix act (pure).

A ``SIMILAR_TO`` link says two errors look alike (:mod:`kgmem.learning.matching`); a fix borrowed
over it is auto-applied only when the two are *provably* the same error (docs/learning.md,
"Borrowed fixes: when they auto-apply"). Proof is read from the text alone, so it must hold for
any error, not only the ones it was measured on:

- **the same core template** (:mod:`kgmem.learning.templates`): the same statements, with only
  values (names, paths, numbers, ids) and wrappers the core leaves out (:mod:`kgmem.learning.core`)
  differing; at least one word in it (a template of values alone proves nothing);
- **and the same identity keys**: every key either carries (exception class, errno, HTTP status,
  database and vendor codes, service code, port, exit status, subject) is present in both and equal.
  A key one side lacks is no proof: the other side may have raised a generic class, which is no key
  (:data:`kgmem.learning.core.GENERIC_EXCEPTIONS`: ``RuntimeWarning`` vs ``ValueError``), or a layer
  may have dropped another status than the one the first printed. The *subject* is the quoted names a
  statement is about (:func:`kgmem.learning.templates.quoted_names`): the template masks them, yet
  ``No module named 'distutils'`` and ``No module named 'distutils.core'`` need other fixes. Such
  names differ between true variants too (``database "metadb" does not exist`` and ``… "dave" …``):
  those stay linked and get the fix as a suggestion, until an outcome proves the link (below).

Looser evidence was measured and is not proof (docs/learning.md): the same statement in another
letter case or punctuation, and a statement wrapped by another layer (``PG::ConnectionBad: FATAL:
<statement>``), each proved more look-alikes the same error on unseen data. What no text can prove
stays a suggestion: two errors with the same statement and keys whose causes differ outside the
message (the tool's state, a source line) are indistinguishable here.

**Proof by outcome** (:func:`link_proof`): a fix borrowed over a link that the agent then reports
successful on the borrowing error, while it worked on the lending one, is evidence the text cannot
give — two errors that one specific fix resolved. The link is then an identity with proof
``"outcome"``, so the next occurrence of that error acts on the lender's fixes. A fix that changed
nothing (``retry with the same parameters``) proves nothing: every transient error takes it
(:func:`fix_proves_identity`). A reported failure of a fix the link lent refutes the link for good:
it is no identity again, whatever text or later outcomes say. Each outcome counts once (the first
success or the first failure of a fix on an error: ``learning/apply_events``).
"""

from __future__ import annotations

import re
from typing import Literal

from kgmem.learning.matching import ErrorText

__all__ = ["PROOF_OUTCOME", "PROOF_TEXT", "Proof", "fix_proves_identity", "link_proof", "same_error"]

Proof = Literal["text", "outcome"]
PROOF_TEXT: Proof = "text"  # same core template and identity keys, subject included (same_error)
PROOF_OUTCOME: Proof = "outcome"  # a fix the link lent worked on both errors, none failed
# The fix an observed recovery records when no parameter changed (kgmem.learning.plan.fix_description).
_RETRY = re.compile(r"(?:^|:\s)retry with the same parameters\s*$", re.IGNORECASE)

_WORDS = re.compile(r"[A-Za-z]{2,}")


def same_error(a: ErrorText, b: ErrorText) -> bool:
    """Whether ``a`` and ``b`` (core templates and identity keys, the subject's names included) are provably
    one error."""
    return a.template == b.template and bool(_WORDS.search(a.template)) and dict(a.keys) == dict(b.keys)


def fix_proves_identity(description: str) -> bool:
    """Whether a fix working on two errors is evidence they are one error: a named fix, not a plain retry."""
    return bool(description and description.strip()) and not _RETRY.search(description)


def link_proof(text: bool, confirmed: int, contradicted: int) -> Proof | None:
    """The proof that a ``SIMILAR_TO`` link joins one error, or None (a borrowed fix only suggests).

    ``text``: :func:`same_error` held when the link was made; ``confirmed``: outcomes that proved it
    (``SIMILAR_TO.proven_by_outcome``: a fix the link lent, one that proves identity, worked here);
    ``contradicted``: fixes the link lent that failed here. One failure refutes the link for good;
    otherwise the text proves it, then an outcome. The same rule is written in
    ``cypher/learning/apply_events.cypher`` (where outcomes are recorded) and
    ``cypher/learning/fragments/known_fix_similar.cypher`` (where fixes are borrowed).
    """
    if contradicted > 0:
        return None
    if text:
        return PROOF_TEXT
    return PROOF_OUTCOME if confirmed > 0 else None

"""Forgetting: erase what a user asks to be forgotten from every store, and leave nothing behind.

* :mod:`kgmem.forget.scope` — the one scope of a call (``id``, ``session``, ``entity``, ``everything``);
* :mod:`kgmem.forget.plan` — which nodes it erases (reads only), counted per store;
* :mod:`kgmem.forget.erase` — the erase, in batches (UNWIND; Chroma deletes per batch);
* :mod:`kgmem.forget.guard` — the tombstones' checks where events enter (no resurrection);
* :mod:`kgmem.forget.spool_files` — the scope's lines removed from the spool files;
* :mod:`kgmem.forget.service` — the operation: resume, plan, audit, tombstones, erase, sweep.

docs/forgetting.md is the user's guide.
"""

from kgmem.forget.scope import ForgetTargetNotFound, Scope, parse_scope
from kgmem.forget.service import ForgetResult, Forgetter, Hooks, default_by

__all__ = ["ForgetResult", "ForgetTargetNotFound", "Forgetter", "Hooks", "Scope", "default_by", "parse_scope"]

"""Identity keys of an error pattern, and when two patterns' keys conflict.

Embedding cosine alone cannot tell ``[Errno 111] Connection refused`` from
``[Errno 113] No route to host`` inside the same 300-character urllib3 wrapper:
the texts differ in one number. So before any score (:mod:`kgmem.learning.matching`),
two patterns must have compatible *identity keys*. Keys come in kinds — OS errors
(``Errno 13`` and ``EACCES`` are the same key; Linux, macOS and Windows numbers of the
same errno map to one name), HTTP statuses, database error codes, and (from
:mod:`kgmem.learning.core`) the exception class and a service code. Two patterns
conflict when, for some kind, both carry keys and share none.

Keys are serialised to a short string so they can ride along as Chroma metadata.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["PROOF_ONLY_KINDS", "error_keys", "keys_compatible", "encode_keys", "decode_keys"]

Keys = Mapping[str, frozenset[str]]

# Kinds of key that must be equal for two errors to be proven one (kgmem.learning.identity.same_error) but that
# do not keep them from being linked: ``subject``, the quoted names an error is about (kgmem.learning.core),
# differs between true variants of one error as often as between look-alikes ("database 'metadb' does not
# exist" and "… 'dave' …"), so a fix stays a suggestion there instead of being lost.
PROOF_ONLY_KINDS = frozenset({"subject"})

# errno number -> symbolic name, for Linux, macOS/BSD and Windows (WSA) numbering.
_ERRNO_NAMES: dict[int, str] = {
    1: "EPERM",
    2: "ENOENT",
    12: "ENOMEM",
    13: "EACCES",
    17: "EEXIST",
    20: "ENOTDIR",
    21: "EISDIR",
    22: "EINVAL",
    24: "EMFILE",
    28: "ENOSPC",
    32: "EPIPE",
    # Linux
    98: "EADDRINUSE",
    99: "EADDRNOTAVAIL",
    101: "ENETUNREACH",
    103: "ECONNABORTED",
    104: "ECONNRESET",
    110: "ETIMEDOUT",
    111: "ECONNREFUSED",
    113: "EHOSTUNREACH",
    # macOS / BSD
    48: "EADDRINUSE",
    49: "EADDRNOTAVAIL",
    51: "ENETUNREACH",
    53: "ECONNABORTED",
    54: "ECONNRESET",
    60: "ETIMEDOUT",
    61: "ECONNREFUSED",
    65: "EHOSTUNREACH",
    # Windows sockets
    10013: "EACCES",
    10048: "EADDRINUSE",
    10049: "EADDRNOTAVAIL",
    10051: "ENETUNREACH",
    10053: "ECONNABORTED",
    10054: "ECONNRESET",
    10060: "ETIMEDOUT",
    10061: "ECONNREFUSED",
    10065: "EHOSTUNREACH",
}
_ERRNO_SYMBOLS = frozenset(_ERRNO_NAMES.values()) | {"ENOTFOUND", "EAI_AGAIN", "ESOCKETTIMEDOUT", "EBUSY", "EROFS"}

_ERRNO_NUMBER = re.compile(r"\b(?:Errno|WinError|errno:?)\s*-?(\d{1,5})\b", re.IGNORECASE)
_ERRNO_SYMBOL = re.compile(r"\b(E[A-Z]{3,}(?:_[A-Z]+)?)\b")
_HTTP = re.compile(r"(?<![\w.<>/-])([45]\d\d)(?![\w>])")
_DB_CODE = re.compile(r"\b(?:ERROR|error:?|ORA-|SQLSTATE\[?)\s*(\d{4,5})\b")
# The C library's strerror() text of an errno is the errno itself: "ssh: connect to host … port 22:
# Network is unreachable" and "…: Operation timed out" differ in nothing else, and need other fixes.
_STRERROR: dict[str, str] = {
    "operation not permitted": "EPERM",
    "no such file or directory": "ENOENT",
    "permission denied": "EACCES",
    "file exists": "EEXIST",
    "not a directory": "ENOTDIR",
    "is a directory": "EISDIR",
    "too many open files": "EMFILE",
    "no space left on device": "ENOSPC",
    "broken pipe": "EPIPE",
    "address already in use": "EADDRINUSE",
    "cannot assign requested address": "EADDRNOTAVAIL",
    "network is unreachable": "ENETUNREACH",
    "connection reset by peer": "ECONNRESET",
    "connection timed out": "ETIMEDOUT",
    "operation timed out": "ETIMEDOUT",
    "connection refused": "ECONNREFUSED",
    "no route to host": "EHOSTUNREACH",
    "read-only file system": "EROFS",
    "device or resource busy": "EBUSY",
}
_STRERROR_RE = re.compile(r"\b(" + "|".join(re.escape(k) for k in _STRERROR) + r")\b", re.IGNORECASE)
# Vendor error codes the template masks as numbers but that name the error: Azure AD (AADSTS700016),
# TypeScript (TS2307 vs TS7016), MongoDB/rustc (E11000, E0308), C#/MSVC/MSBuild/NuGet (CS0246, LNK2019,
# MSB3073, NU1101; not klog's `E0418 12:01:02` date prefix), SQLSTATE classes (HY000, 08006) and npm's
# `code E404` / `code ERESOLVE`.
_VENDOR_CODE = re.compile(
    r"\b(AADSTS\d{4,}|TS\d{4,5}|E\d{4,5}(?!\s+(?:\d|<))|CS\d{4}|LNK\d{4}|MSB\d{4}|NU\d{4})\b"
    r"|\bSQLSTATE\[?([0-9A-Z]{5})\b"
    r"|\bcode:?\s*'?(E[A-Z0-9]{2,})\b"
)
# The resource a scheduler lacks ("0/5 nodes are available: 3 Insufficient pods" vs "insufficient cpu").
# Only after a node count: "insufficient permissions" in prose is not a resource.
_INSUFFICIENT = re.compile(r"(?:\b\d+|<n>)\s+insufficient\s+([\w./-]+)", re.IGNORECASE)
# Exit statuses the shell gives a meaning (POSIX.1-2017 Shell & Utilities §2.8.2, bash(1) "EXIT STATUS"):
# 126 found but not executable, 127 command not found, 128+n killed by signal n (137 SIGKILL — often the
# OOM killer, 139 SIGSEGV, 143 SIGTERM). Statuses 1-125 are the program's own and vary between runs of
# one error, so they are no key.
_EXIT = re.compile(
    r"\bexit(?:ed)?\s+(?:with\s+)?(?:code|status)\s*[:=]?\s*(\d{1,3})\b"
    r"|\bexited\s+with\s+(?:code\s+)?(\d{1,3})\b",
    re.IGNORECASE,
)
# Signal numbers of POSIX <signal.h> (Linux numbering) by name: "exit code 137" and "SIGKILL" are one key.
_SIGNALS = {
    1: "SIGHUP",
    2: "SIGINT",
    3: "SIGQUIT",
    4: "SIGILL",
    6: "SIGABRT",
    7: "SIGBUS",
    8: "SIGFPE",
    9: "SIGKILL",
    11: "SIGSEGV",
    13: "SIGPIPE",
    14: "SIGALRM",
    15: "SIGTERM",
}
_SIGNAL_NAME = re.compile(r"\b(SIG(?:HUP|INT|QUIT|ILL|ABRT|BUS|FPE|KILL|SEGV|PIPE|ALRM|TERM))\b")
_SEP_KIND, _SEP_VAL = ";", ","


def error_keys(pattern: str) -> dict[str, frozenset[str]]:
    """Identity keys of a (normalised) error pattern, by kind: ``os``, ``http``, ``db``, ``code`` (vendor),
    ``resource`` (what a scheduler lacks), ``exit`` (a shell-defined exit status)."""
    os_keys = {_ERRNO_NAMES.get(int(n), f"E#{int(n)}") for n in _ERRNO_NUMBER.findall(pattern)}
    os_keys |= {s for s in _ERRNO_SYMBOL.findall(pattern) if s in _ERRNO_SYMBOLS}
    os_keys |= {_STRERROR[m.lower()] for m in _STRERROR_RE.findall(pattern)}
    vendor = frozenset(next(g for g in m.groups() if g) for m in _VENDOR_CODE.finditer(pattern))
    keys = {
        "os": frozenset(os_keys),
        "http": frozenset(_HTTP.findall(pattern)),
        "db": frozenset(_DB_CODE.findall(pattern)),
        "code": vendor,
        "resource": frozenset(r.lower().rstrip(".") for r in _INSUFFICIENT.findall(pattern)),
        "exit": _exit_keys(pattern),
    }
    return {kind: values for kind, values in keys.items() if values}


def _exit_keys(pattern: str) -> frozenset[str]:
    """Shell-defined exit statuses (126, 127; 128+n as the name of signal n) and signal names."""
    out = set(_SIGNAL_NAME.findall(pattern))
    for m in _EXIT.findall(pattern):
        code = int(next(c for c in m if c))
        if code in (126, 127):
            out.add(str(code))
        elif 128 < code <= 255:
            out.add(_SIGNALS.get(code - 128, str(code)))
    return frozenset(out)


def keys_compatible(a: Keys, b: Keys) -> bool:
    """False when, for some kind, both patterns carry keys and share none (kinds of :data:`PROOF_ONLY_KINDS`
    aside)."""
    return all(kind in PROOF_ONLY_KINDS or not (kind in b and values.isdisjoint(b[kind])) for kind, values in a.items())


def encode_keys(keys: Keys) -> str:
    """``{"os": {"EACCES"}, "http": {"403"}}`` -> ``"http=403;os=EACCES"`` (stable order)."""
    return _SEP_KIND.join(f"{kind}={_SEP_VAL.join(sorted(values))}" for kind, values in sorted(keys.items()))


def decode_keys(text: str) -> dict[str, frozenset[str]]:
    """Inverse of :func:`encode_keys`."""
    out: dict[str, frozenset[str]] = {}
    for part in filter(None, (text or "").split(_SEP_KIND)):
        kind, _, values = part.partition("=")
        out[kind] = frozenset(filter(None, values.split(_SEP_VAL)))
    return out

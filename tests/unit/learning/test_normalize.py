"""Normalisation: volatile details become placeholders, identity stays."""

from __future__ import annotations

import pytest

from kgmem.learning.normalize import normalize_error, signature


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # ports, IPv4 and IPv6
        ("Error: connect ECONNREFUSED 127.0.0.1:5432", "Error: connect ECONNREFUSED 10.2.0.7:6543"),
        ("connect ECONNREFUSED ::1:5432", "connect ECONNREFUSED fe80::1:6000"),
        # host:port and quoted host/port arguments
        (
            "Error 111 connecting to localhost:6379. Connection refused.",
            "Error 111 connecting to cache-2.prod.internal:6380. Connection refused.",
        ),
        (
            "HTTPConnectionPool(host='a.com', port=80): Max retries exceeded",
            "HTTPConnectionPool(host='b.example.org', port=8080): Max retries exceeded",
        ),
        # POSIX, relative and Windows paths (also as Python repr with doubled backslashes)
        (
            "PermissionError: [Errno 13] Permission denied: '/home/u/a.txt'",
            "PermissionError: [Errno 13] Permission denied: 'C:\\\\Users\\\\bob\\\\b.txt'",
        ),
        ("No such file: logs/config.json", "No such file: conf/other/server.yaml"),
        # UUIDs, ISO/log timestamps, request and org ids, hex addresses
        (
            "job 727a64ea-20c3-4ab9-b917-179addda3a8f failed at 2024-01-02T03:04:05.123Z",
            "job 0b1c2d3e-aaaa-4bbb-8ccc-1234567890ab failed at 2025-12-31 23:59:59+01:00",
        ),
        ("[10/Oct/2000:13:55:36 -0700] upstream failed", "[01/Jan/2024:00:00:01 +0000] upstream failed"),
        (
            '{"request_id":"req_011CcLPrMiu53v6Rp1jfe1Cd"} overloaded',
            '{"request_id":"req_99xyzABCdef12345"} overloaded',
        ),
        (
            "in organization org-Yu8pTMWbwQ0jvtsUA1H1py29 on requests",
            "in organization org-ks3x7KSLAWTqCJv1Yq9x3FmZ on requests",
        ),
        ("<HTTPConnection object at 0x7f5aee6bae80>", "<HTTPConnection object at 0xcea0a008>"),
        # hashes, durations, sizes, line/column numbers, URL query strings, API keys
        (
            "commit 4cfd579e59742aa1d9ff41578899ed28636fa88c missing",
            "commit 0f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6 missing",
        ),
        ("Retrying in 4s (took 1.5 seconds)", "Retrying in 20s (took 300ms)"),
        ("Tried to allocate 8.13 GiB", "Tried to allocate 512.00 MiB"),
        ('File "/srv/app/x.py", line 12, in f', 'File "/opt/other/x.py", line 340, in f'),
        ("at Server.listen (net.js:1452:7)", "at Server.listen (net.js:1508:17)"),
        ("GET https://api.x.io/v1/items?page=2&id=9 failed", "GET https://api.x.io/v2/other?q=1 failed"),
        ("Incorrect API key provided: sk-proj-abcd****1234.", "Incorrect API key provided: sk-XYZ1***9876."),
        ("Expecting value: line 1 column 1 (char 0)", "Expecting value: line 7 column 13 (char 200)"),
    ],
)
def test_volatile_details_give_the_same_pattern(a: str, b: str) -> None:
    assert normalize_error(a) == normalize_error(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("[Errno 111] Connection refused", "[Errno 113] No route to host"),
        ("OSError: [Errno 28] No space left", "OSError: [Errno 24] No space left"),  # errno kept
        ("HTTP Error 403: Forbidden", "HTTP Error 404: Forbidden"),  # HTTP status kept
        ("ERROR 1045 (28000): Access denied", "ERROR 2002 (28000): Access denied"),  # DB error code kept
        ("exit status 128", "exit status 1"),
        ("No module named 'torch'", "No module named 'numpy'"),  # quoted names identify the error
        ("The model `gpt-4` does not exist", "The model `gpt-3.5-turbo` does not exist"),  # glued numbers kept
        ("ValueError: bad input", "TypeError: bad input"),  # exception type kept
    ],
)
def test_identity_is_kept(a: str, b: str) -> None:
    assert normalize_error(a) != normalize_error(b)


def test_exact_placeholders() -> None:
    text = (
        "2024-05-01T10:00:00Z ERROR psql: could not connect to server at db.internal:5432 "
        "(10.0.0.5) from /var/lib/app/run.py:12:4 after 30s, request id: abcdef123456, 4097 tokens"
    )
    assert normalize_error(text) == (
        "<ts> ERROR psql: could not connect to server at <host>:<port> (<ip>) from <path>:<line> "
        "after <duration>, request id: <id>, <n> tokens"
    )


def test_whitespace_wrapping_and_repeated_lines_collapse() -> None:
    wrapped = "Permission denied, please try again.\n  Permission denied, please try again.\n\tfatal:   gave up\r\n"
    assert normalize_error(wrapped) == "Permission denied, please try again. fatal: gave up"


def test_deterministic_and_idempotent() -> None:
    text = "Error: connect ETIMEDOUT 13.110.0.73:443 at 2024-01-01 10:00:00"
    once = normalize_error(text)
    assert once == normalize_error(text)
    assert normalize_error(once) == once


def test_long_messages_are_truncated() -> None:
    assert len(normalize_error("x" * 10_000)) == 2000
    assert len(normalize_error("word " * 10_000, max_chars=100)) == 100


def test_signature_drops_frames_and_source_lines() -> None:
    tb = (
        "Traceback (most recent call last):\n"
        '  File "/stt/start.py", line 5, in <module>\n'
        "    import torch\n"
        "ModuleNotFoundError: No module named 'torch'"
    )
    assert signature(tb) == "ModuleNotFoundError: No module named 'torch'"
    node = "Error: listen EADDRINUSE :::3000\n    at Server.setupListenHandle (net.js:1318:16)\n  code: 'EADDRINUSE'"
    assert signature(node) == "Error: listen EADDRINUSE <ip> code: 'EADDRINUSE'"

"""Categories: word-boundary rules in priority order, exception types first."""

from __future__ import annotations

import pytest

from kgmem.learning.categories import CATEGORIES, categorize


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ("Read timed out. (read timeout=15)", "timeout"),
        ("Error: connect ETIMEDOUT 10.0.0.1:443", "timeout"),
        ("[Errno 110] Connection timed out", "timeout"),
        ("context deadline exceeded", "timeout"),
        ("504 Gateway Time-out", "timeout"),
        ("Permission denied (publickey).", "permission"),
        ("Error: EACCES: permission denied, mkdir '/usr/lib/x'", "permission"),
        ("HTTP Error 403: Forbidden", "permission"),
        ("401 Unauthorized", "permission"),
        ("Incorrect API key provided: sk-...", "permission"),
        ("Error code: 429 - rate_limit_error", "provider_error"),
        ("You exceeded your current quota", "provider_error"),
        ("API Error: 529 Overloaded", "provider_error"),
        ("The model `gpt-5` does not exist or you do not have access to it.", "provider_error"),
        ("This model's maximum context length is 4097 tokens", "provider_error"),
        ("RateLimitError: slow down", "provider_error"),
        ("bash: kubectl: command not found", "tool_error"),
        ("Error: connect ECONNREFUSED 127.0.0.1:5432", "tool_error"),
        ("ModuleNotFoundError: No module named 'torch'", "tool_error"),
        ("fatal: not a git repository (or any of the parent directories): .git", "tool_error"),
        ("CUDA out of memory. Tried to allocate 2 GiB", "general"),
        ("No space left on device", "general"),
    ],
)
def test_real_phrasings(message: str, category: str) -> None:
    assert categorize(message) == category


@pytest.mark.parametrize(
    "message",
    [
        "rapid prototyping failed",          # not "rate limit"
        "Errno 1100 unknown",                # not Errno 110 (timeout) nor Errno 1 (EPERM)
        "quotation mark missing",            # not "quota"
        "outlier detection crashed",         # not "timeout"/"out"
        "authorized_keys file is malformed", # not "unauthorized"
        "status 4290 from backend",          # not 429
    ],
)
def test_substrings_do_not_match(message: str) -> None:
    assert categorize(message) == "general"


def test_priority_order() -> None:
    # A 401 from a provider is a credential problem; a timeout while rate limited is a timeout.
    assert categorize("OpenAI 401: invalid api key") == "permission"
    assert categorize("rate limit request timed out") == "timeout"


def test_exception_type_wins_over_message() -> None:
    assert categorize("something went wrong", ["ReadTimeout", "RequestException", "OSError"]) == "timeout"
    assert categorize("no access", ["PermissionError", "OSError"]) == "permission"
    assert categorize("boom", ["RateLimitError", "APIStatusError"]) == "provider_error"
    assert categorize("boom", ["ValueError"]) == "general"  # falls through to the message rules


def test_every_result_is_a_known_category() -> None:
    for msg in ("", "x", "Permission denied", "timed out", "429"):
        assert categorize(msg) in CATEGORIES


@pytest.mark.parametrize(
    ("message", "category"),
    [  # issue 9: what the rules missed (credentials, provider-side 5xx, throttling answered with 403)
        ('{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', "permission"),
        ("botocore.exceptions.NoCredentialsError: Unable to locate credentials", "permission"),
        ("google.auth.exceptions.DefaultCredentialsError: Could not automatically determine credentials.", "permission"),
        ("AADSTS7000215: Invalid client secret is provided.", "permission"),
        ("SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided.",
         "permission"),
        ('FATAL:  no pg_hba.conf entry for host "10.0.0.2", user "app", database "app"', "permission"),
        ("Host key verification failed.", "permission"),
        ("An error occurred (RateLimitExceeded) when calling the DescribeInstances operation (reached max retries: 4):"
         " 403 Forbidden", "provider_error"),
        ("botocore.exceptions.ClientError: An error occurred (ThrottlingException): Rate exceeded", "provider_error"),
        ('API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}',
         "provider_error"),
    ],
)
def test_issue9_rules(message: str, category: str) -> None:
    assert categorize(message) == category


@pytest.mark.parametrize(
    ("message", "category"),
    [  # issue 9b: the training half's misses — a line number is not a status, a zero timeout is not slow
        ("/usr/bin/ld: cannot find -lcrypto\ncollect2: error: ld returned 1 exit status\n"
         "/tmp/GmSagjWH:401: recipe for target 'parser' failed", "tool_error"),
        ("Error: timeout of 0ms exceeded", "general"),
        ("Error: timeout of 5000ms exceeded", "timeout"),
        ("status:401 Unauthorized", "permission"),
        ("HTTP Error 403: Forbidden", "permission"),
    ],
)
def test_issue9b_rules(message: str, category: str) -> None:
    assert categorize(message) == category


def test_credential_exception_types() -> None:
    assert categorize("Unable to locate credentials", ["NoCredentialsError", "BotoCoreError"]) == "permission"
    assert categorize("403", ["RateLimitExceeded"]) == "provider_error"


@pytest.mark.parametrize(
    ("message", "category"),
    [  # issue 9c: rules from public specifications (errno, HTTP, gRPC, SQLSTATE, cloud and SDK error names)
        ("HTTP/1.1 408 Request Timeout", "timeout"),
        ("upstream answered 504", "timeout"),
        ("rpc error: code = DeadlineExceeded desc = DEADLINE_EXCEEDED", "timeout"),
        ("java.net.SocketTimeoutException: Read timed out", "timeout"),
        ("httpx.PoolTimeout", "timeout"),
        ("openai.APITimeoutError: Request timed out.", "timeout"),
        ("An error occurred (RequestTimeout) when calling the PutObject operation", "timeout"),
        ("rpc error: code = PermissionDenied desc = PERMISSION_DENIED: caller lacks iam.serviceAccounts.get", "permission"),
        ("status: UNAUTHENTICATED, message: request had invalid credentials", "permission"),
        ("HTTP/1.1 407 Proxy Authentication Required", "permission"),
        ("SQLSTATE[28000] [1045] Access denied", "permission"),
        ("ERROR:  permission denied for table users (SQLSTATE 42501)", "permission"),
        ("An error occurred (UnauthorizedOperation) when calling the RunInstances operation", "permission"),
        ("Code: AuthorizationFailed. Message: The client does not have authorization to perform action", "permission"),
        ("anthropic.PermissionDeniedError: Error code: 403", "permission"),
        ("google.api_core.exceptions.ResourceExhausted: 429 RESOURCE_EXHAUSTED", "provider_error"),
        ("An error occurred (ProvisionedThroughputExceededException) when calling the PutItem operation",
         "provider_error"),
        ("An error occurred (RequestLimitExceeded) when calling the DescribeInstances operation", "provider_error"),
        ("502 Bad Gateway", "provider_error"),
        ("HTTP 503 Service Unavailable", "provider_error"),
        ("rpc error: code = Unavailable desc = UNAVAILABLE: connection closed", "provider_error"),
        ("anthropic.OverloadedError: Error code: 529", "provider_error"),
        # a bare 500 wraps the real cause; "unavailable" in prose is no gRPC code
        ("HTTP ERROR: 500\njava.lang.OutOfMemoryError: Java heap space", "general"),
        ("the requested resource is temporarily unavailable", "general"),
    ],
)
def test_issue9c_spec_rules(message: str, category: str) -> None:
    assert categorize(message) == category


def test_spec_exception_types() -> None:
    assert categorize("boom", ["PermissionDeniedError", "APIStatusError"]) == "permission"
    assert categorize("boom", ["ServiceUnavailableError"]) == "provider_error"
    assert categorize("boom", ["APITimeoutError", "APIConnectionError"]) == "timeout"


@pytest.mark.parametrize(
    ("message", "category"),
    [  # issue 9c, bigger corpus: more spec-derived names; an option is no event
        ("npm ERR! code E401\nnpm ERR! Unable to authenticate", "permission"),
        ("Unhandled exception. Octokit.ForbiddenException: Resource protected", "permission"),
        ('{"error": {"code": 403, "status": "PERMISSION_DENIED", "details": [{"reason": "SERVICE_DISABLED"}]}}',
         "permission"),
        ('{"error": {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"}}',
         "provider_error"),
        ("HTTP 402 Payment Required", "provider_error"),
        ('{"error": {"message": "max_tokens is too large", "type": "invalid_request_error"}}', "provider_error"),
        ("helm upgrade --install --timeout=5m0s app ./chart\nError: another operation is in progress", "general"),
        ("Error: UPGRADE FAILED: timed out waiting for the condition", "timeout"),
    ],
)
def test_issue9c_more_spec_rules(message: str, category: str) -> None:
    assert categorize(message) == category


@pytest.mark.parametrize(
    ("message", "category"),
    [  # issue 9c: libcurl, Kubernetes, .NET, OCI registry and Anthropic names
        ("curl: (28) Operation too slow. Less than 1 bytes/sec transferred", "timeout"),
        ('{"kind":"Status","reason":"ServerTimeout","code":500}', "timeout"),
        ("curl: (67) Access denied: 530", "permission"),
        ("System.UnauthorizedAccessException: Access to the path 'C:\\\\x' is denied.", "permission"),
        ("denied: requested access to the resource is denied", "permission"),
        ('{"type":"error","error":{"type":"permission_error","message":"not allowed"}}', "permission"),
        ('{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
         "provider_error"),
    ],
)
def test_issue9c_tool_spec_rules(message: str, category: str) -> None:
    assert categorize(message) == category

"""Error categories: ``timeout``, ``permission``, ``provider_error``, ``tool_error``, ``general``.

Rules are word-boundary regular expressions tried in priority order (the first
category with a matching rule wins), never substring tests: "rapid" is not a
rate limit and "Errno 1" does not match "Errno 110". When the caller passes the
exception's class names (its MRO), those are checked first: a ``TimeoutError``
is a timeout whatever its message says. Before the message rules run, what names
code rather than an event is blanked (source files of stack frames, quoted
identifiers after "has no attribute", "keyword argument", …), and a 502/503 from a
loopback address is the user's own server (``tool_error``), not a provider.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["CATEGORIES", "categorize"]

CATEGORIES = ("timeout", "permission", "provider_error", "tool_error", "general")

_I = re.IGNORECASE


def _rx(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives), _I)


def _status(codes: str) -> str:
    """An HTTP status ``codes`` (regex alternatives), but not a source location's line number:
    ``/tmp/GmSagjWH:401: recipe for target`` is line 401 of a makefile, not a 401."""
    return rf"(?<![\w.]:)\b(?:{codes})\b|\b(?:{codes})\b(?!:)"


# A zero timeout is no timeout configured (``timeout of 0ms exceeded``): a setup error, not a slow peer.
_ZERO_TIMEOUT = re.compile(r"\btime(?:d[ -]?)?out\b\W{0,3}(?:of|after|=|:)?\s*0 ?(?:ms|s|sec|seconds)\b", _I)

# A quoted identifier that a message names as code (Python's "has no attribute 'rate_limit'", "unexpected
# keyword argument 'timeout'", "KeyError: 'token_expired'"; "unknown option 'timeout'") says which name is
# wrong, not what happened: it is blanked before the message rules run.
_CODE_NAME = re.compile(
    r"(?P<lead>\b(?:has no attribute|keyword argument|for argument|cannot import name|name|KeyError:|attribute|option"
    r"|argument|parameter|field|column|property|variable|flag|setting)\s*)['\"`][\w.-]+['\"`]",
    _I,
)
# A source file in a stack trace names code, not an event: ``urllib3/util/timeout.py``, ``ratelimit/decorators.py``,
# ``auth/permissions.js`` appear in the frames of errors of every kind. Blanked before the message rules run.
# The look-behind starts a match only where a path token starts: without it a long run of word
# characters (a 1 MB hostile message) costs quadratic backtracking.
_SOURCE_FILE = re.compile(
    r"(?<![\w.@/\\-])[\w.@/\\-]*\b[\w-]+\.(?:py|pyx|js|mjs|cjs|ts|tsx|jsx|go|rb|java|kt|scala|rs|c|cc|cpp|h|hpp|php|cs|swift|ex|exs)\b"
)
# A timeout that is a value being validated ("ValueError: timeout must be a positive number", "invalid
# timeout value"), not a timeout that happened.
_TIMEOUT_SETTING = re.compile(
    r"\btimeouts?\b\W{0,3}(?:value\s+)?(?:must|should) be (?:an? |at )?(?:positive|non-negative|greater|less|least"
    r"|most|between|int|integer|number|float|>|<|\d)|\binvalid (?:value for )?timeout\b"
    r"|\btimeout (?:value|parameter|argument|option|setting)s? (?:is |are )?(?:invalid|not valid|not supported)\b",
    _I,
)


# Rules from public specifications, not from the corpus' messages (held-out categories
# must generalise). Each list names its source.
_SPEC_TIMEOUT = (
    _status(
        "408|504|524"
    ),  # RFC 9110 §15.5.9 Request Timeout, §15.6.5 Gateway Timeout; Cloudflare 524 "A timeout occurred"
    r"\bDEADLINE_EXCEEDED\b",  # gRPC status code 4 (grpc/doc/statuscodes.md); Google Cloud APIs use the same names
    r"\bWSAETIMEDOUT\b",  # Winsock error 10060 (Windows Sockets Error Codes)
    # AWS (S3 "RequestTimeout", API Gateway / Lambda "RequestTimeoutException"), Azure ("OperationTimedOut",
    # "GatewayTimeout"): the services' documented error-code names.
    r"(?-i:\bRequestTimeout(?:Exception)?\b)",  # code names (case-sensitive): not a "requestTimeout" setting
    r"\bOperationTimedOut\b",
    r"\bGatewayTimeout\b",
    # Provider SDKs: openai / anthropic APITimeoutError; httpx ReadTimeout/ConnectTimeout/WriteTimeout/PoolTimeout;
    # Java SocketTimeoutException / TimeoutException; Python socket.timeout.
    r"\bAPITimeoutError\b",
    r"(?-i:\b(?:Read|Connect|Write|Pool)Timeout\b)",  # class names only (not a "connectTimeout" setting)
    r"\b\w*Timeout(?:Error|Exception)\b",
    r"\bsocket\.timeout\b",
    r"\bServerTimeout\b",  # Kubernetes API metav1.StatusReasonServerTimeout
    # libcurl-errors(3): CURLE_OPERATION_TIMEDOUT is curl's exit / error code 28 ("curl: (28) …").
    r"\bCURLE_OPERATION_TIMEDOUT\b",
    r"\bcurl: \(28\)",
)
_SPEC_THROTTLED = (
    r"\bRESOURCE_EXHAUSTED\b",  # gRPC status code 8 (quota / rate limit)
    # AWS: ThrottlingException, Throttling, TooManyRequestsException, RequestLimitExceeded (EC2),
    # ProvisionedThroughputExceededException (DynamoDB), SlowDown (S3); Azure "TooManyRequests", "ServerBusy".
    r"\bThrottling\b",
    r"\bRequestLimitExceeded\b",
    r"\bProvisionedThroughputExceeded(?:Exception)?\b",
    r"\bServerBusy\b",
)
_SPEC_PERMISSION = (
    _status("407"),  # RFC 9110 §15.5.8 Proxy Authentication Required (401/403 are in the rules below)
    r"\bPERMISSION_DENIED\b",  # gRPC status code 7
    r"\bUNAUTHENTICATED\b",  # gRPC status code 16
    # SQLSTATE (ISO/IEC 9075, PostgreSQL Appendix A): class 28 invalid authorization specification
    # (28000, 28P01 invalid_password), 42501 insufficient_privilege.
    r"\bSQLSTATE\[?\s*28(?:000|P01)\b",
    r"\b(?:SQLSTATE\[?\s*)?42501\b",
    r"\binsufficient_privilege\b",
    r"\binvalid_(?:password|authorization_specification)\b",
    # MySQL server error reference: ER_ACCESS_DENIED_ERROR 1045, ER_DBACCESS_DENIED_ERROR 1044,
    # ER_TABLEACCESS_DENIED_ERROR 1142.
    r"\bER_(?:DB|TABLE)?ACCESS_DENIED_ERROR\b",
    # AWS error codes (IAM/STS/EC2/S3 API references): UnauthorizedOperation, AuthFailure,
    # MissingAuthenticationToken, IncompleteSignature, NotAuthorizedException (Cognito),
    # InvalidToken; Azure Resource Manager: AuthorizationFailed, AuthenticationFailed,
    # InvalidAuthenticationToken(Audience), ExpiredAuthenticationToken, AuthorizationPermissionMismatch.
    r"\bUnauthorizedOperation\b",
    r"\bAuthFailure\b",
    r"\bMissingAuthenticationToken\w*",
    r"\bIncompleteSignature\w*",
    r"\bNotAuthorized(?:Exception)?\b",
    r"\bInvalidToken\b",
    r"\bAuthori[sz]ationFailed\b",
    r"\bAuthenticationFailed\b",
    r"\b(?:Invalid|Expired)AuthenticationToken\w*",
    r"\bAuthorizationPermissionMismatch\b",
    # Provider SDKs (openai / anthropic): PermissionDeniedError (403), AuthenticationError (401, below).
    r"\bPermissionDeniedError\b",
    r"\bpermission_error\b",  # Anthropic API error type (403)
    r"\bUnauthorizedAccessException\b",  # .NET System.UnauthorizedAccessException
    # libcurl-errors(3): CURLE_LOGIN_DENIED, curl's code 67.
    r"\bCURLE_LOGIN_DENIED\b",
    r"\bcurl: \(67\)",
    # OCI distribution spec error code DENIED: "requested access to the resource is denied".
    r"\brequested access to the resource is denied\b",
    # Azure Storage error codes: AuthorizationFailure, InsufficientAccountPermissions.
    r"\bAuthorizationFailure\b",
    r"\bInsufficientAccountPermissions\b",
    # Exceptions named after the RFC 9110 reason phrases of 401/403 (Octokit.ForbiddenException, UnauthorizedError).
    r"\b\w*(?:Forbidden|Unauthori[sz]ed)(?:Exception|Error)\b",
    # npm reports a registry's HTTP status as "code E<status>" (npm-registry-fetch): E401 / E403.
    r"\bE40[13]\b",
    # Google APIs ErrorInfo reasons (google.rpc.ErrorInfo, "Standard error payloads"): an API not enabled
    # for the project is a 403 PERMISSION_DENIED with reason SERVICE_DISABLED / accessNotConfigured.
    r"\bSERVICE_DISABLED\b",
    r"\baccessNotConfigured\b",
)
# RFC 9110 §15.6.3 502 Bad Gateway, §15.6.4 503 Service Unavailable: the service is not there.
# Not a bare 500: a server's catch-all around the real cause ("HTTP ERROR: 500 … Java heap space",
# "code": 500 around EHOSTUNREACH); "Internal Server Error" worded is above. A gateway answers for the
# service behind it: when that is on the loopback interface it is the user's own server, a tool
# (``categorize`` skips these statuses then, see ``_LOOPBACK``).
_GATEWAY = (
    _status("50[23]"),
    r"\bbad gateway\b",
    r"\bservice (?:temporarily )?unavailable\b",
    r"\bservice is (?:currently |temporarily )?unavailable\b",
    # Cloudflare 520 / 521 / 523 pages: the origin behind the proxy failed.
    r"\bweb server is (?:down|returning an unknown error)\b",
    r"\borigin is unreachable\b",
)
_SPEC_PROVIDER = (
    r"(?-i:\bUNAVAILABLE\b)",  # gRPC status code 14 (upper case only: the code name, not the English word)
    # AWS: ServiceUnavailable(Exception), InternalFailure; Azure: ServiceUnavailable. Not S3's
    # "InternalError": database drivers raise an InternalError of their own (psycopg2.errors.InternalError).
    r"\bServiceUnavailable(?:Exception|Error)?\b",
    r"\bInternalFailure\b",
    # Provider SDKs (openai / anthropic): RateLimitError, APIConnectionError, InternalServerError,
    # OverloadedError, ServiceUnavailableError; anthropic's "overloaded_error" / "api_error" types.
    r"\bOverloadedError\b",
    # Google APIs error model (cloud.google.com/apis/design/errors): 500 INTERNAL is the service's own failure.
    r"(?-i:\bINTERNAL\b)",
    # RFC 9110 §15.5.3 402 Payment Required; npm's E429. Provider docs: DeepSeek "402 Insufficient Balance",
    # OpenRouter "402 insufficient credits".
    _status("402"),
    r"\bE429\b",
    r"\binsufficient (?:balance|credits?|funds)\b",
    # OpenAI / Anthropic error type for a request the API rejects (400 invalid_request_error): the
    # provider's contract (model, token limits), not the tool's.
    r"\binvalid_request_error\b",
    r"\brequest_too_large\b",  # Anthropic API error type (413)
)


# Wider coverage from specifications and widespread tool wording (each names its source).
_SPEC_TIMEOUT_MORE = (
    # Go context.DeadlineExceeded / google.api_core.exceptions.DeadlineExceeded (class name in the text).
    r"\bDeadlineExceeded\w*",
    r"\bdeadline has elapsed\b",  # tokio::time::error::Elapsed's Display text
    # Chromium net error list: ERR_TIMED_OUT, ERR_CONNECTION_TIMED_OUT; Node / undici error codes
    # ERR_SOCKET_CONNECTION_TIMEOUT, UND_ERR_CONNECT_TIMEOUT / _HEADERS_TIMEOUT / _BODY_TIMEOUT.
    r"(?-i:\bERR_\w*TIMED_OUT\b)",
    r"(?-i:\b(?:ERR_SOCKET_CONNECTION|UND_ERR_(?:CONNECT|HEADERS|BODY))_TIMEOUT\b)",
    r"(?-i:\bETIMEOUT\b)",  # c-ares DNS error code in Node (dns.TIMEOUT, "queryA ETIMEOUT")
    r"\btook too long to respond\b",  # Chromium's page for ERR_CONNECTION_TIMED_OUT
    r"\boperation too slow\b",  # libcurl CURLE_OPERATION_TIMEDOUT for --speed-limit ("Operation too slow")
    r"(?-i:\bHYT0[01]\b)",  # ODBC SQLSTATE HYT00 "Timeout expired", HYT01 "Connection timeout expired"
    r"\bexecution expired\b",  # Ruby Timeout::Error / Net::OpenTimeout default message
    r"\bTimeoutExpired\b",  # Python subprocess.TimeoutExpired
    r"(?-i:INVOCATION_TIMEOUT\b)",  # Vercel FUNCTION_/EDGE_..._INVOCATION_TIMEOUT
    # Exception / error class names (Ruby Net::OpenTimeout, Java SocketTimeout, Jetty IdleTimeout …): capitalised
    # class names only, so a camelCase setting ("connectTimeout: 5") is not read as a timeout that happened.
    r"(?-i:\b(?:Open|Read|Write|Connect|Connection|Request|Socket|Idle|Lock|Response|Handshake|Navigation)Timeout\b)",
    r"\b(?:Soft)?TimeLimitExceeded\b",  # Celery task time limits (celery.exceptions)
    # GitHub Actions "has exceeded the maximum execution time of 360 minutes"; PHP "Maximum execution time of
    # 30 seconds exceeded"; SQL Server / MySQL max_execution_time.
    r"\bexceeded (?:the )?maximum execution time\b",
    r"\bmaximum execution time of [^.\n]{1,40}? exceeded\b",
    r"\btook longer than \d+\s*(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?)\b",
)
_SPEC_PERMISSION_MORE = (
    # GitHub protected branches (GH006 "Protected branch update failed"; the push is refused as
    # "protected branch hook declined"), gitolite's access rules ("DENIED by fallthru"), Azure RBAC
    # ("Principal does not have access to API/Operation"): the fix is a role or a branch rule.
    r"\bProtected branch update failed\b",
    r"\bprotected branch hook declined\b",
    r"\bDENIED by fallthru\b",
    r"\bPrincipal does not have access\b",
    # OpenSSH (sshconnect2.c / authfile.c): a private key readable by others is refused.
    r"\bUNPROTECTED PRIVATE KEY FILE\b",
    r"\bpermissions 0?[0-7]{3} for .{1,300}? are too open\b",
    r"\bbad owner or permissions\b",  # ssh(1) for ~/.ssh/config
    r"\bbad permissions\b",  # ssh "Load key ...: bad permissions"
    r"\btoo many authentication failures\b",  # sshd MaxAuthTries
    # OpenSSH ≥ 8.8 refuses SHA-1 RSA: host authentication ("no matching host key type found"), user
    # authentication ("sign_and_send_pubkey: no mutual signature supported") and their key exchange fail
    # before any password is asked; the fix is the authentication algorithms allowed (-o HostKeyAlgorithms=…).
    r"\bUnable to negotiate with\b.{1,120}?\bno matching (?:host key type|key exchange method)\b",
    r"\bno mutual signature (?:supported|algorithm)\b",
    # PowerShell execution policy (about_Execution_Policies; PSSecurityException, FullyQualifiedErrorId
    # UnauthorizedAccess): "running scripts is disabled on this system", "… is not digitally signed".
    # (PowerShell wraps its messages at the console width: any whitespace between the words)
    r"\b(?:running\s+scripts|script\s+execution)\s+is\s+disabled\s+on\s+this\s+system\b",
    r"\bis\s+not\s+digitally\s+signed\.\s+You\s+cannot\s+run\s+this\s+script\b",
    # Credentials that are not configured at all: botocore ProfileNotFound ("The config profile (x) could not
    # be found"), LangChain's "Did not find openai_api_key, please add an environment variable OPENAI_API_KEY".
    r"\bThe config profile \([^)]{0,120}\) could not be found\b",
    r"\bDid not find \w{0,40}api_key\b",
    # Google APIs: the SERVICE_DISABLED message ("... API has not been used in project N before or it is
    # disabled. Enable it by visiting ..."); google.rpc "insufficient authentication scopes"
    # (ACCESS_TOKEN_SCOPE_INSUFFICIENT), "Request had invalid authentication credentials" (401).
    r"\bhas not been used in project\b",
    r"\bACCESS_TOKEN_SCOPE_INSUFFICIENT\b",
    r"\binsufficient authentication scopes\b",
    r"\binvalid authentication credentials\b",
    r"\breauthentication (?:is )?(?:needed|required)\b",  # google-auth RefreshError for a reauth policy
    # GitHub docs, "Authenticating with SAML single sign-on": "Resource protected by organization SAML enforcement".
    r"\bSAML (?:enforcement|SSO|single sign-on)\b",
    # RFC 6749 §5.2 / §4.1.2.1 and RFC 6750 §3.1 OAuth error codes (invalid_client / invalid_grant are above).
    r"\b(?:invalid_token|insufficient_scope|unauthorized_client|access_denied)\b",
    # Microsoft Entra ID (Azure AD) sign-in errors are all "AADSTS<number>" (authentication and authorization codes).
    r"\bAADSTS\d{5,6}\b",
    r"\bdoes not have authorization to perform\b",  # Azure RBAC AuthorizationFailed message
    # Windows: ERROR_ACCESS_DENIED (5), COM E_ACCESSDENIED = HRESULT 0x80070005, ERROR_ELEVATION_REQUIRED (740).
    r"\b(?:ERROR_ACCESS_DENIED|E_ACCESSDENIED)\b",
    r"\b0x80070005\b",
    r"\brequires elevation\b",
    # sudo(8): "user is not in the sudoers file", "a password is required", "a terminal is required".
    r"\bnot in the sudoers file\b",
    r"\bsudo: a (?:password|terminal) is required\b",
    r"\bare you root\b",  # apt / dpkg lock files opened without privileges
    r"\bmust be (?:run as )?(?:root|superuser|an administrator)\b",
    r"\b(?:superuser|root|administrator|admin|elevated) (?:privileges?|rights) (?:are |is )?required\b",
    r"\bmust be owner of\b",  # PostgreSQL 42501 insufficient_privilege wording for ALTER/DROP
    r"\bNOPERM\b",  # Redis ACL error prefix
    r"\bENEEDAUTH\b",  # npm: "This command requires you to be logged in"
    r"\brequires you to be logged in\b",
    r"\bnot (?:logged in|authenticated)\b",
    r"\bmust be (?:logged|signed) in\b",
    r"\blogin required\b",
    # Kubernetes RBAC denial: 'User "x" cannot list resource "pods" in API group'.
    r"\bcannot (?:get|list|watch|create|update|patch|delete|deletecollection) resource\b",
    r"\bpermission to \S+ denied\b",  # git hosting: "remote: Permission to org/repo.git denied to user"
    # google.api_core.exceptions.PermissionDenied (gRPC PERMISSION_DENIED), django.core.exceptions.PermissionDenied.
    r"\bPermissionDenied\w*",  # also gax PermissionDeniedException
    r"\bUnauthenticated\w*",  # gax UnauthenticatedException (gRPC UNAUTHENTICATED)
    # Exception classes named after authentication / authorization failures: Kafka SaslAuthenticationException,
    # TopicAuthorizationException; azure-core ClientAuthenticationError; MongoAuthenticationError; Spring
    # BadCredentialsException; Kafka error codes TOPIC_AUTHORIZATION_FAILED / SASL_AUTHENTICATION_FAILED.
    r"Authentication(?:Error|Exception)\b",  # any prefix (SaslAuthenticationException)
    r"Authori[sz]ation(?:Error|Exception)\b",
    r"\bBadCredentials\w*",
    r"(?-i:(?:\b|_)AUTH(?:ORIZATION|ENTICATION)_FAILED\b)",
    r"\bPermission Denial\b",  # Android java.lang.SecurityException wording
    r"\bavc:\s+denied\b",  # SELinux access vector cache denial
    # GitHub: a GITHUB_TOKEN / app token without the permission ("Resource not accessible by integration"),
    # admin-only endpoints, and a token without the `workflow` scope ("refusing to allow a Personal Access Token").
    r"\bResource not accessible by (?:integration|personal access token)\b",
    r"\bmust have admin rights\b",
    r"\brefusing to allow an? (?:Personal Access Token|OAuth App|GitHub App)\b",
    # Credentials: wrong / missing / expired (git, docker login, databases, cloud SDKs).
    r"\b(?:wrong|incorrect|invalid|bad) (?:username or password|username/password|user(?:name)?/password"
    r"|password|passphrase)\b",
    r"\b(?:invalid|expired|revoked|missing) (?:user|access|bearer|auth|api|refresh|id|session|security|oauth"
    r"|personal access) token\b",
    r"\b(?:token|credentials|password) (?:is|are|has|have) (?:been )?(?:expired|revoked)\b",
    r"\bsecurity token included in the request is expired\b",  # AWS ExpiredToken message
    r"\bno (?:valid )?credentials\b",
    r"\bcredentials (?:not found|were not found|could not be found|are invalid|are not valid)\b",
    r"\bjwt expired\b",  # jsonwebtoken TokenExpiredError message
    r"\bTokenExpired(?:Error|Exception)?\b",
    # GitLab: "You are not allowed to push code to this project" / "... to access ..." (403 wording).
    r"\byou are not allowed to (?:push|access|perform|create|delete|view|read|write|download|upload)\b",
    # SMTP AUTH (RFC 4954 §6): 535 5.7.8 "Authentication credentials invalid";
    # Gmail "Username and Password not accepted".
    r"\b535[ -]5\.7\.[0-9]\b",
    r"\busername and password not accepted\b",
    # Wider tool wording for a refused identity or right (each the tool's own documented message):
    r"\bAccess to the path .{1,300}? is denied\b",  # .NET UnauthorizedAccessException message
    r"\bcommand denied to user\b",  # MySQL ER_TABLEACCESS_DENIED_ERROR (1142) / ER_COLUMNACCESS_DENIED_ERROR
    r"\bnot permitted to log ?in\b",  # PostgreSQL: role "x" is not permitted to log in (28000)
    r"\bcould not read Password\b",  # git credential prompt without a terminal
    # (Not git's "Please make sure you have the correct access rights": git prints that trailer after every
    # failed remote, an unreachable network included.)
    r"\bno basic auth credentials\b",  # docker push/pull without a login
    r"\bneed auth\b",  # npm ENEEDAUTH summary line
    # Google Cloud IAM: "x does not have storage.objects.get access to ...", "Permission 'p' denied on resource",
    # "IAM_PERMISSION_DENIED"; Hugging Face "Access to model x is restricted. You must be authenticated".
    r"\bdoes not have [\w.]+ access to\b",
    r"\bpermission ['\"][\w.]+['\"] denied\b",
    r"\bIAM_PERMISSION_DENIED\b",
    r"\baccess to model \S+ is restricted\b",
    r"\bmust be authenticated\b",
    # AWS signature errors (403): RequestTimeTooSkewed, "Signature expired"; unknown access key id.
    r"\bRequestTimeTooSkewed\b",
    r"\bsignature expired\b",
    r"\bAccess Key Id you provided does not exist\b",
    # LLM APIs (401/403 wording): OpenAI "Invalid Authentication", "You must be a member of an organization to
    # use the API", "Your organization must be verified"; Anthropic "x-api-key header is required"; Gemini
    # "API key expired".
    r"\binvalid authentication\b",
    r"\bmust be a member of an organization\b",
    r"\borganization must be verified\b",
    r"\bapi[ _-]key header is (?:required|missing)\b",
    r"\bapi[ _-]?key (?:has )?expired\b",
    # google/api/error_reason.proto and servicecontrol CheckError codes (ErrorInfo.reason) for a refused caller.
    r"(?-i:\b(?:API_KEY_(?:\w+_BLOCKED|EXPIRED|NOT_FOUND)|USER_PROJECT_DENIED|CONSUMER_(?:SUSPENDED|INVALID)"
    r"|SECURITY_POLICY_VIOLATED|ACCESS_TOKEN_(?:EXPIRED|TYPE_UNSUPPORTED)|INVALID_CREDENTIAL"
    r"|(?:IP_ADDRESS|REFERER|CLIENT_APP|API_TARGET)_BLOCKED)\b)",
    # Region restrictions answered with 403 (OpenAI "unsupported_country_region_territory" / "Country, region,
    # or territory not supported"; Gemini "User location is not supported for the API use").
    r"\bunsupported_country_region_territory\b",
    r"\bcountry, region,? or territory not supported\b",
    r"\buser location is not supported\b",
    # Missing LLM API keys: openai "The api_key client option must be set", "You didn't provide an API key",
    # anthropic "Could not resolve authentication method".
    r"\bapi_key client option must be set\b",
    r"\b(?:didn't|did not) provide an API key\b",
    r"\bmissing API[ _-]?key\b",
    r"\bno API[ _-]?key (?:was )?(?:provided|found|set|configured|supplied)\b",  # not prose "(no API key)"
    r"\bAPI[ _-]?key (?:is )?(?:missing|required|not (?:set|found|provided))\b",
    r"\bcould not resolve authentication method\b",
)
_SPEC_THROTTLED_MORE = (
    # Google APIs error reasons: rateLimitExceeded, userRateLimitExceeded, quotaExceeded, dailyLimitExceeded;
    # AWS ServiceQuotaExceededException, LimitExceededException; Azure QuotaExceeded.
    r"RateLimitExceeded\b",  # also userRateLimitExceeded (a prefix is allowed)
    r"QuotaExceeded",
    r"\b(?:dailyLimitExceeded|LimitExceededException)\b",
    # GitHub REST docs: "You have exceeded a secondary rate limit" / "API rate limit exceeded", answered with 403.
    r"\b(?:secondary|abuse) rate limit\b",
    r"\bAPI rate limit\b",
    # google.api_core.exceptions.ResourceExhausted, gax ResourceExhaustedException (gRPC RESOURCE_EXHAUSTED, 429).
    r"\bResourceExhausted\w*",
)
_SPEC_PROVIDER_MORE = (
    # Azure OpenAI: the provider's content filter refused the prompt or the completion
    # (finish_reason / code "content_filter", "... content management policy"); an API version of
    # the deployment that does not know a request field ("Unrecognized request argument supplied").
    r"\bcontent management policy\b",
    r"\(content_filter\)",
    r"\bUnrecognized request arguments? supplied\b",
    # Google APIs error model: 500 INTERNAL, message "Internal error encountered." / "An internal error has
    # occurred" right after the status.
    r"\binternal error encountered\b",
    r"(?<![\w.]:)\b500[ :-]{1,3}(?:an )?internal error\b",  # not "file.c:500: internal error" (a line)
    # The request exceeds the model's limits (OpenAI "max_tokens is too large ... supports at most N completion
    # tokens"; OpenRouter codes context_length_exceeded / max_tokens_exceeded / token_limit_exceeded; Anthropic
    # "prompt is too long: N tokens > M maximum"; LiteLLM ContextWindowExceededError).
    r"\bmax_tokens is too large\b",
    r"\bsupports at most \d+ completion tokens\b",
    r"\b(?:max_tokens|token_limit)_exceeded\b",
    r"\bprompt is too long: \d+ tokens\b",
    r"\bContextWindowExceeded(?:Error)?\b",
    r"\bexceeds? (?:the )?(?:model's )?context window\b",
    r"\bmaximum allowed number of output tokens\b",
    # A retired model (OpenAI deprecations page, Groq "model_decommissioned").
    # A quoted model name is required: "the `model` argument is deprecated" is a library's API change, not a model.
    r"\bmodel:?\s*[`'\"][^`'\"\n]{1,80}[`'\"]\s+"
    r"(?:has been|was|is) (?:deprecated|decommissioned|retired|discontinued)\b",
    r"\bmodel_decommissioned\b",
    # Payment / credits: OpenRouter 402 "requires more credits ... can only afford N", OpenAI
    # billing_hard_limit_reached / billing_not_active.
    r"\brequires more credits\b",
    r"\bcan only afford\b",
    r"\bbilling_(?:hard_limit_reached|not_active)\b",
    # Rate limits per unit of time, as OpenAI / Azure OpenAI / Groq word them ("on tokens per min (TPM)").
    r"\b(?:tokens|requests) per (?:min(?:ute)?|day)\b",
    # Capacity: Hugging Face Inference API 503 "Model ... is currently loading";
    # AWS Bedrock ModelNotReadyException; EC2 InsufficientInstanceCapacity.
    r"\bmodel\b[^\n]{0,100}?\bis currently loading\b",  # model ids carry dots (Llama-3.1-8B)
    r"\bModelNotReady(?:Exception)?\b",
    r"\bInsufficientInstanceCapacity\b",
    # Hugging Face Inference API: "The model x is too large to be loaded automatically" (a limit of the service).
    r"\btoo large to be loaded automatically\b",
    # AWS Bedrock runtime errors: InternalServerException, ModelErrorException; "Input is too long for
    # requested model" (ValidationException wording for the model's limit); "Too many tokens, please wait".
    r"\bInternalServerException\b",
    r"\bModelErrorException\b",
    r"\binput is too long for requested model\b",
    r"\btoo many tokens\b",
    # OpenAI invalid_request_error for a field over the API's size limit.
    r"\bExpected a string with maximum length\b",
    # Anthropic 404 not_found_error naming a model (the provider's model list, as OpenAI model_not_found).
    r"\bnot_found_error\b[^\n]{0,60}\bmodel\b",
    # Throttling advice worded by Azure OpenAI / OpenAI rate limits ("Please retry after 6 seconds").
    r"\bplease (?:retry|try again) (?:after|in) \d+(?:\.\d+)? ?(?:s|secs?|seconds?|ms|milliseconds?)\b",
    # google/api/error_reason.proto: RATE_LIMIT_EXCEEDED, RESOURCE_QUOTA_EXCEEDED, BILLING_DISABLED (payment, as 402);
    # Compute Engine ZONE_RESOURCE_POOL_EXHAUSTED (no capacity in the zone).
    r"(?-i:\b(?:RATE_LIMIT_EXCEEDED|(?:RESOURCE_)?QUOTA_EXCEEDED|BILLING_DISABLED|ZONE_RESOURCE_POOL_EXHAUSTED\w*)\b)",
    # AWS: ThrottlingException's message "Rate exceeded"; S3 SlowDown "Please reduce your request rate"; S3
    # InternalError "We encountered an internal error. Please try again."; Azure capacity codes SkuNotAvailable,
    # AllocationFailed / ZonalAllocationFailed.
    r"(?-i:(?<![A-Za-z] )\bRate exceeded\b)",  # the message itself, not "error rate exceeded 5%"
    r"\breduce your request rate\b",
    r"\bwe encountered an internal error\b",
    r"\bSkuNotAvailable\b",
    r"\b(?:Zonal)?AllocationFailed\b",
    # Anthropic billing_error type; OpenRouter "No endpoints found for model ..." / "Provider returned error";
    # Bedrock "The provided model identifier is invalid"; Hugging Face TGI "`inputs` tokens + `max_new_tokens`
    # must be <= N" (the served model's limit).
    r"\bbilling_error\b",
    r"\bNo endpoints found (?:for|that|matching)\b",
    r"\bProvider returned error\b",
    r"\bmodel identifier is invalid\b",
    r"\bmax_new_tokens`? must be <=",
)

_GATEWAY_RULE = _rx(*_GATEWAY)
_LOOPBACK = re.compile(r"\b(?:localhost|127\.0\.0\.1|0\.0\.0\.0)\b|\[::1\]", _I)


# Priority order matters: a 401 "invalid API key" from a provider is a permission
# problem (the fix is a credential), a 429 is a provider problem (the fix is to
# wait or pay), a refused connection is the tool's backend.
_MESSAGE_RULES: list[tuple[str, re.Pattern[str]]] = [
    (
        "timeout",
        _rx(
            # not a command-line option ("--timeout=5m0s" is a setting, not a timeout that happened)
            r"(?<!--)\btimed?[ -]?out\b(?!=)",
            r"(?<!--)\btimeouts?\b(?!=)",
            r"\b(?:ETIMEDOUT|ESOCKETTIMEDOUT|ETIME)\b",
            r"\bErrno (?:110|60)\b",
            r"\bWinError 10060\b",
            r"\bdeadline[ _]exceeded\b",
            r"\bgateway time-?out\b",
            _status("504"),
            r"\bTimeoutError\b",
            r"(?-i:\b(?:Read|Connect)Timeout(?:Error)?\b)",  # class names, not a camelCase setting
            *_SPEC_TIMEOUT,
            *_SPEC_TIMEOUT_MORE,
        ),
    ),
    (
        # A rate limit is a provider problem even when the service answers 403 (AWS/GitHub throttling).
        "provider_error",
        _rx(
            r"\bRateLimitExceeded\b",
            r"\brate[ _-]?limit(?:ed)?[ _-]exceeded\b",
            r"\bthrottl(?:ed|ing|ingexception)\b",
            r"\bTooManyRequests\w*\b",
            r"\bSlowDown\b",
            *_SPEC_THROTTLED,
            *_SPEC_THROTTLED_MORE,
        ),
    ),
    (
        # Answered "forbidden" but not about access: Docker's build-context rule (COPY/ADD of a path
        # outside the context: the fix is the context or the path, no access right).
        "tool_error",
        _rx(r"\bforbidden path outside the build context\b"),
    ),
    (
        "permission",
        _rx(
            r"\bpermission denied\b",
            r"\b(?:EACCES|EPERM)\b",
            r"\bErrno (?:13|1)\b",
            r"\bWinError 5\b",
            r"\baccess (?:is )?denied\b",
            r"\bforbidden\b",
            _status("40[13]"),
            r"\bunauthori[sz]ed\b",
            r"\bnot authori[sz]ed\b",
            r"\bPermissionError\b",
            r"\bauthentication (?:failed|required)\b",
            r"\bAuthenticationError\b",
            r"\b(?:incorrect|invalid) api[ _-]?key\b",
            r"\binvalid_api_key\b",
            r"\bAccessDenied\w*",
            # Credentials missing or rejected (what the rules missed on the training half).
            r"\b\w*Credentials?Error\b",
            r"\bunable to locate credentials\b",
            r"\bcould not (?:automatically )?determine credentials\b",
            r"\bpartial credentials\b",
            r"\bauthentication[_ ]error\b",
            r"\binvalid[ _-]x-api-key\b",
            r"\bAPI[ _]key (?:not valid|is invalid|invalid)\b",
            r"\bAPI_KEY_INVALID\b",
            r"\binvalid[_ ]client(?:[_ ]secret)?\b",
            r"\binvalid_grant\b",
            r"\bSignatureDoesNotMatch\b",
            r"\bInvalidClientTokenId\b",
            r"\bsecurity token included in the request is invalid\b",
            r"\bExpiredToken\w*\b",
            r"\bpg_hba\.conf\b",
            r"\bhost key verification failed\b",
            r"\bREMOTE HOST IDENTIFICATION HAS CHANGED\b",
            r"\bdubious ownership\b",
            r"\b(?:WRONGPASS|NOAUTH)\b",
            r"\bgated repo\b",
            r"\bsignature (?:we calculated )?does not match\b",
            r"\b(?:invalid|expired|bad|missing) "
            r"(?:token|credentials|access token|auth(?:entication)? token|api token)\b",
            r"\btoken (?:has )?expired\b",
            r"\b(?:login|auth(?:entication)?) failed\b",
            r"\brequires authentication\b",
            r"\b(?:does not|doesn't|do not|don't) have (?:the )?permissions?\b",
            r"\bnot allowed to access\b",
            r"\bmissing (?:required )?(?:scopes?|permissions?)\b",
            r"\b(?:InvalidAccessKeyId|UnrecognizedClientException|InvalidSignatureException)\b",
            r"\bcould not read Username\b",
            r"\binsufficient (?:permissions?|privileges?)\b",
            r"\boperation not permitted\b",
            r"\bpassword authentication\b",
            r"\bno password supplied\b",
            r"\bpublickey\b",
            *_SPEC_PERMISSION,
            *_SPEC_PERMISSION_MORE,
        ),
    ),
    (
        "provider_error",
        _rx(
            _status("429"),
            _status("529"),
            r"\brate[ _-]?limit(?:ed|s|_error)?\b",
            r"\b(?:insufficient_)?quota\b",
            r"\boverloaded(?:_error)?\b",
            r"\btoo many requests\b",
            r"\bmodel[_ ]not[_ ]found\b",
            r"\bmodel\b[^.\n]{0,40}?\bdoes not exist\b",
            r"\bRateLimitError\b",
            r"\bAPI(?:Status|Connection)Error\b",
            r"\bcontext[_ ]length(?:_exceeded)?\b",
            r"\bmaximum context length\b",
            r"\bcredit balance\b",
            r"\b(?:server_error|api_error|InternalServerError)\b",
            r"\bserver had an error\b",
            r"\binternal server\s+error\b",
            *_SPEC_PROVIDER,
            *_SPEC_PROVIDER_MORE,
        ),
    ),
    ("provider_error", _GATEWAY_RULE),  # skipped for a loopback address (categorize)
    (
        "tool_error",
        _rx(
            r"\bcommand not found\b",
            r"\bNo such file or directory\b",
            r"\b(?:ENOENT|EADDRINUSE|ECONNREFUSED|ECONNRESET|EPIPE|EEXIST|ENOTDIR|EISDIR)\b",
            r"\baddress already in use\b",
            r"\bconnection refused\b",
            r"\brefused\b",
            r"\bsocket hang up\b",
            r"\bconnection reset\b",
            r"\b(?:FileNotFoundError|ModuleNotFoundError|ImportError|JSONDecodeError|UnicodeDecodeError)\b",
            r"\b(?:TypeError|ValueError|KeyError|AttributeError|IndexError|NameError|SyntaxError)\b",
            r"\bNo module named\b",
            r"\bcannot import name\b",
            r"\bexit (?:code|status)\b",
            r"\bnon-zero exit\b",
            r"\binvalid (?:argument|option|value|syntax)\b",
            r"\bunknown (?:option|argument|command|revision|flag)\b",
            r"\bambiguous argument\b",
            r"\bmissing required (?:argument|parameter|field)\b",
            r"\bnot a git repository\b",
            r"\bfailed to push\b",
            r"\b(?:rejected)\b",
            r"\bdoes not exist\b",
            r"\bCould not find a version\b",
            r"\bNo matching distribution\b",
            r"\bCannot connect to the Docker daemon\b",
            r"\bCan't connect to local \w+ server\b",
        ),
    ),
]

_TYPE_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("timeout", re.compile(r"timeout|timedout|deadlineexceeded", _I)),
    (
        "provider_error",
        re.compile(
            r"^(?:ratelimitexceeded|throttlingexception|toomanyrequests|throttling"
            r"|provisionedthroughputexceeded|requestlimitexceeded)",
            _I,
        ),
    ),
    (
        "permission",
        re.compile(
            r"^(?:permissionerror|permissiondenied|forbidden|unauthori[sz]ed|authenticationerror|accessdenied"
            r"|unauthenticated|notauthorized|expiredtoken|invalidclienttokenid|unrecognizedclient"
            r"|clientauthenticationerror)"  # azure.core.exceptions.ClientAuthenticationError
            r"|credentialserror$|^nocredentials",
            _I,
        ),
    ),
    (
        "provider_error",
        re.compile(
            r"^(?:ratelimiterror|apistatuserror|apiconnectionerror|overloadederror|apierror"
            r"|internalservererror|serviceunavailable(?:error|exception)?|badgateway(?:error)?"
            # google.api_core ResourceExhausted; LiteLLM ContextWindowExceededError;
            # AWS ServiceQuotaExceededException, Bedrock ModelNotReadyException.
            r"|resourceexhausted|contextwindowexceedederror|servicequotaexceededexception"
            r"|modelnotreadyexception)$",
            _I,
        ),
    ),
]


# What names an error is at the head of a message (the exception, the status) or at its tail (the
# last line of a traceback); output between them only makes ~150 regular expressions slow (about
# 13 ms per 1,000 characters), it never decides the category. Every corpus message (at most 1,192
# characters) is read whole.
_HEAD_CHARS = 1_536
_TAIL_CHARS = 512


def _window(message: str) -> str:
    if len(message) <= _HEAD_CHARS + _TAIL_CHARS:
        return message
    return message[:_HEAD_CHARS] + "\n" + message[-_TAIL_CHARS:]


def categorize(message: str, exc_types: Sequence[str] = ()) -> str:
    """Category of an error ``message``; ``exc_types`` are the exception's class names (MRO), if any."""
    for category, rule in _TYPE_RULES:
        if any(rule.search(name) for name in exc_types):
            return category
    message = _window(message)
    message = _SOURCE_FILE.sub("<src>", _CODE_NAME.sub(lambda m: m.group("lead") + "'_'", message))
    for category, rule in _MESSAGE_RULES:
        if category == "timeout" and (
            _ZERO_TIMEOUT.search(message) or rule.search(_TIMEOUT_SETTING.sub(" ", message)) is None
        ):
            continue
        if rule is _GATEWAY_RULE and _LOOPBACK.search(message):
            if rule.search(message):
                return "tool_error"  # a 502/503 in front of the user's own local server: the tool's backend
            continue
        if rule.search(message):
            return category
    return "general"

"""Core-error extraction: the line(s) of a tool's output that carry the error, without wrappers.

Real tools wrap the same error in different envelopes: log prefixes (``time=… level=error
msg="…"``, ``E   ``, ``ERROR:``, ``[2024-01-02 03:04:05] ERROR``), container prefixes
(``api_1  | ``), JSON envelopes (``{"level":"error","msg":"…"}``), shell prompts
(``$ git pull``), stack frames and exception-class prefixes
(``boto3.exceptions.S3UploadFailedError: …``). Two reports of one error differ mostly in
those wrappers, so matching looks at the *core* only (:mod:`kgmem.learning.matching`).

What is kept beside the core lines is what tells errors apart although their wording is
alike — the *identity*: the exception class (not a generic base such as ``RuntimeError``),
a trailing service code such as ``(AccessDenied)``, and the tool named by a prompt or a
tool prefix. Errno / HTTP / database codes are read from the normalised core by
:func:`kgmem.learning.similarity.error_keys`.

:func:`extract_core` is pure and deterministic.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass

from kgmem.learning.similarity import error_keys
from kgmem.learning.templates import quoted_names, template

__all__ = ["CoreError", "extract_core", "GENERIC_EXCEPTIONS"]

_MAX_CORE_LINES = 4
_MAX_CANDIDATES = 12  # error-looking lines looked at before the core's lines are chosen
_MAX_LINE_CHARS = 600
_MAX_JSON_CHARS = 20_000

# Base classes that many unrelated errors share, or that wrappers re-raise any error as:
# they identify nothing, so they are no identity key (found on the corpus' training half:
# "RuntimeError: CUDA out of memory" and "torch.cuda.OutOfMemoryError: CUDA out of memory"
# are one error).
GENERIC_EXCEPTIONS = frozenset(
    {
        "Error",
        "Exception",
        "BaseException",
        "RuntimeError",
        "StandardError",
        "SystemError",
        "OSError",
        "IOError",
        "EnvironmentError",
        "Throwable",
        "RuntimeException",
        "PanicException",
        "UnhandledPromiseRejection",
        "UnhandledPromiseRejectionWarning",
        "CalledProcessError",
        "HTTPError",
        "HttpError",
        "APIError",
        "ApiError",
        "ClientError",
        "ServerError",
        "InvalidRequestError",
        "BadRequestError",
        "APIStatusError",
        "OpenAIError",
        "ExecutionError",
        "CommandError",
        "ProcessError",
        "Warning",
        "UserWarning",
        "FatalError",
        "ValueError",
        # PEP 249 (DB-API 2.0): the classes every driver raises its errors as. The driver's own subclass
        # (psycopg2.errors.ForeignKeyViolation) and the SQLSTATE code name the error; these only its family, and
        # one driver version raises psycopg2.DatabaseError where another raises OperationalError for one error.
        "DatabaseError",
        "InterfaceError",
        "DataError",
        "OperationalError",
        "IntegrityError",
        "InternalError",
        "ProgrammingError",
        "NotSupportedError",
    }
)

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# "svc_1  | ", "web-1 | ", "api.1 |" (docker compose); not "a | b" inside a sentence: the name comes first.
_CONTAINER = re.compile(r"^[A-Za-z][\w.-]*(?:[-_]\d+)?\s+\|\s?")
_TS = (
    r"(?:\d{4}[-/]\d{2}[-/]\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?)?"
    r"|\d{2}:\d{2}:\d{2}(?:[.,]\d+)?"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\s+\d{1,2}\s+\d{2}:\d{2}:\d{2})"
)
_LEVEL = r"(?:ERROR|ERR|FATAL|CRITICAL|CRIT|WARN(?:ING)?|INFO|DEBUG|TRACE|PANIC|SEVERE|NOTICE|EMERG|ALERT|E|W|F)"
# Leading timestamp, [bracketed] timestamp/level/logger, level words with ':' or '|' or '-'.
_PREFIXES = [
    re.compile(rf"^\[?{_TS}\]?[\s,:-]*"),
    re.compile(rf"^\[(?:{_LEVEL})\s*\][\s:-]*", re.IGNORECASE),
    re.compile(rf"^\[{_TS}[^\]]{{0,20}}\][\s:-]*"),
    re.compile(
        r"^(?:\w+\s)?[{\[]\s*(?=\[?(?:[A-Z]\w*)?(?:Error|Exception)\b)"
    ),  # node's "{ Error: …", "err { [Error: …"
    re.compile(rf"^(?:{_LEVEL})(?:\s*[:|\]-]\s*|\s{{2,}}|\s(?=[A-Z\[]))"),
    re.compile(r"^(?:level|lvl|severity)=\w+\s+", re.IGNORECASE),
    re.compile(r"^#\d+\s+\d+(?:\.\d+)?\s+"),  # docker buildkit "#10 18.23 "
    re.compile(r"^(?:npm|yarn|pnpm)\s+(?:ERR!|error|WARN|warn)\s*"),
    re.compile(r"^remote:\s*"),
]
_LOGFMT_MSG = re.compile(r"""(?:^|\s)(?:msg|message|error|err|reason)=(?:"((?:[^"\\]|\\.)*)"|(\S+))""")
_LOGFMT = re.compile(r"^(?:\S+=(?:\"(?:[^\"\\]|\\.)*\"|\S*)\s+){1,}")
_PROMPT = re.compile(r"^(?:[\w.@~:/-]*\s?)?[$#>%❯]\s+(\S.*)$")
_COMMAND_WORD = re.compile(r"^(?:sudo\s+)?(?:[\w./-]*/)?([A-Za-z][\w.+-]*)")
_TOOL_PREFIX = re.compile(
    r"^(git|npm|yarn|pnpm|pip3?|psql|mysql|mysqldump|docker|docker-compose|kubectl|helm|curl|wget|ssh|scp|"
    r"cargo|rustc|go|make|gcc|g\+\+|clang|javac|mvn|gradle|terraform|ansible|aws|gcloud|az|node|deno|"
    r"python3?|ruby|gem|bundle|composer|php|conda|brew|apt|apt-get|yum|dnf|systemctl|journalctl|redis-cli)"
    r"(?=:\s)",
    re.IGNORECASE,
)
_SHELLS = frozenset({"bash", "-bash", "sh", "zsh", "fish", "dash", "ksh", "csh", "tcsh", "powershell", "pwsh", "cmd"})

_FRAME = re.compile(
    r"^\s*(?:at\s+\S|File\s+\"|Traceback\b|During handling|The above exception|\^+\s*$|~+\s*$|frame\s+#|\.\.\.\s*\d*"
    r"\s*more\b|\(\d+ additional|Emitted 'error'|[│╭╰]|#\d+\s+0x|goroutine\s+\d+|"
    r"\S+\.go:\d+(?:\s+\+0x[0-9a-f]+)?\s*$|\s*\S+\(\S*\)\s*$|"
    r"npm (?:ERR!|error) (?:A complete log|\s*$))"
)
# A line that names an error: exception names, error/fatal words, errno, HTTP statuses, failure words.
_ERRORISH = re.compile(
    r"\b\w*(?:Error|Exception|Exc|Failure|Fault)\b|\berror\b|\bfatal\b|\bpanic\b|\bErrno\b|\bE[A-Z]{3,}\b"
    r"|\b[45]\d\d\b|\bfail(?:s|ed|ure)?\b|\bdenied\b|\brefused\b|\bnot (?:found|allowed|permitted|exist)\b"
    r"|\bdoes not exist\b|\bno such\b|\bunable\b|\bcannot\b|\bcan't\b|\bcould not\b|\bcouldn't\b|\binvalid\b"
    r"|\btimed? ?out\b|\bunknown\b|\bmissing\b|\bexceeded\b|\brejected\b|\bunauthori[sz]ed\b|\bforbidden\b"
    r"|\bout of memory\b|\bno space\b|\babort(?:ed)?\b|\bkilled\b|\bsegmentation\b|\bcommand not found\b"
    r"|\bdeprecated\b|\bwarning\b|\bconflict\b|\bincompatible\b|\bunsupported\b|\bnot\b|n't\b|\*\*\*"
    r"|\bno (?:such|rule|route|module|matching|space|password|current|valid|suitable|available)\b"
    r"|\bunreachable\b|\bwrong\b|\bcaused\b|\bunexpected\b|\bcorrupt"
    r"|\bbad\b|\binsufficient\b",  # HTTP reason phrases ("Bad credentials", "Bad Gateway"), quota/balance errors
    re.IGNORECASE,
)
# Lines that are advice or context around the error rather than the error.
_ADVICE = re.compile(
    r"^(?:Please|Hint|hint|Note|note|See|Use|Did you mean|To|For more|Learn more|Check|Make sure|Try|Run|If)\b"
    r"(?!\w*(?:Error|Exception))"
)
_SENTENCE = re.compile(r"(?<=[a-z)'\"`][.!?])\s+(?=[A-Z])|(?<=[a-z])[.,]\s+(?=If you\b)")
# "pkg.mod.SomeError: text", "SomeError [SubError]: text", "SomeError(…)" at the start of a core line.
_EXC_PREFIX = re.compile(
    r"^(?:[A-Za-z_][\w$]*\.)*([A-Z][\w$]*(?:Error|Exception|Exc|Warning|Failure|Fault|Interrupt|Exit))"
    r"(?:\s*\[[\w.]+\])?(?::\s*|\s+-\s+|\s*$)"
    r"|^(Error|Exception|error|Fatal error|fatal error|FATAL|fatal)(?:\s*:\s*|\s+-\s+)"
    # SQLAlchemy names the driver's class in parentheses first: "(psycopg2.OperationalError) FATAL: …"
    r"|^\((?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception))\)\s+"
)
# Error-object fields node/npm print under the message ("code: 'ECONNREFUSED'", "npm ERR! errno -13")
# and re-raise source lines: the message line above them already carries the error.
# Pretty-printed JSON error objects print the same fields quoted ("code": 400, "@type": "…"), and open a nested
# object on a line of its own ("error": {).
_FIELD_LINE = re.compile(
    r"""^[{\[]?\s*["']?(?:errno|code|syscall|address|port|path|dest|signal|info|type|@type|name|status|cmd"""
    r"""|stdout|stderr)["']?\s*[:=]?\s+\S|^raise\s+\w|^throw\s+\w|^[}\]]\s*$"""
    r"""|^["']?[\w@.-]+["']?\s*:\s*[{\[]\s*$"""
)
# Wrapper classes that re-raise the error they wrap; an identity key they are not.
_GENERIC_PATTERN = re.compile(r"(?i)^\w*(?:http|api)\w*(?:error|exception)$|^MaxRetryError$|^NewConnectionError$")
# A trailing "(AccessDenied)" / "(NoSuchBucket)": the service's own error code.
_SERVICE_CODE = re.compile(r"\(([A-Z][a-z]+(?:[A-Z][a-z0-9]*)+)\)\s*\.?\s*$")
_SPACES = re.compile(r"\s+")
# A quoted span of three or more words is a message, not a name: unquoted, so templating (which
# turns quoted values into <*>) keeps its words: caused "exec format error".
_QUOTED_MESSAGE = re.compile(
    r"""(?<![\w\\])(["'`])((?:(?!\1)[^\n]){3,300}?\s(?:(?!\1)[^\n])*?\s(?:(?!\1)[^\n])*?)\1(?![\w])"""
)
_MARKDOWN = re.compile(r"^(?:`{1,3}|\*\*)(.*?)(?:`{1,3}|\*\*)$")
# Java/Python qualified class names inside a line ("Caused by: java.lang.FooError: …").
_QUALIFIED_EXC = re.compile(r"\b(?:[a-z_]\w*\.)+([A-Z]\w*(?:Error|Exception))\b")
# Any class name in a chain ("StartupException: ElasticsearchException[…]; nested: AccessDeniedException[…]").
_NAMED_EXC = re.compile(r"\b([A-Z][A-Za-z0-9]*(?:Error|Exception))\b")
# "port 22" vs "port 443": a system port (0-1023, IANA "Service Name and Transport Protocol Port
# Number Registry", RFC 6335 §6) names the protocol (ssh vs https), and a timeout on one needs
# another fix than on the other. Ports ≥ 1024 are an application's choice (8080, 5432): no key.
_SYSTEM_PORT = re.compile(r"\bport\s+(\d{1,4})\b", re.IGNORECASE)
# Python's traceback ends in "module.ClassName: message" or a bare "module.ClassName", whatever the class
# is called (httpx.ReadTimeout vs httpx.ConnectTimeout; google.api_core.exceptions.PermissionDenied).
_DOTTED_CLASS = re.compile(r"^(?:[a-z_]\w*\.)+([A-Z][A-Za-z0-9]+)(?::\s|$)")
# A severity word at the start of a line in any case: after a re-raising class ("psycopg2.OperationalError:
# FATAL:  no pg_hba.conf entry") or as a syslog level in brackets ("[emerg]", nginx/Apache).
_LEVEL_WORD = re.compile(
    r"^(?:\[(?:emerg|alert|crit|critical|error|err|warn|warning|fatal|panic|severe)\]\s*"
    r"|(?:\*\*)?(?:emerg|alert|crit|critical|error|err|fatal|panic|severe)(?:\*\*)?\s*:\s+)",
    re.IGNORECASE,
)
# A prefix in another script before an ASCII message, ending in an ASCII or full-width colon: a user's or a
# localised tool's words around the error ("运行示例代码报错：No module named 'x'").
_LOCALE_PREFIX = re.compile(
    r"^[^\x00-\x7f]+(?:\s+[^\x00-\x7f]+)*\s*[:：]\s*(?=[\x21-\x7e])"
    r"|^[^\w\s\x00-\x7f]+\s*"
)  # or symbols a terminal UI prints first: "✕ ", "⨯ ", "🤖 "
# Leading component tags in brackets ("[webpack-cli] ", "[scan_engine][fingerprint_targets] ", "[i] "): the
# logger, not the error. Not a code in brackets ("[ERR_REQUIRE_ESM]", "[Errno 2]", "[SSL: …]").
_TAGS = re.compile(r"^(?:\[(?![A-Z0-9_]{3,}\])[^\]\s:]{1,40}\]\s*)+(?=\S)")
# "head: rest" where the head is a location or an id ("src/main.c:3:10: fatal error: …", "1#1: host not found"):
# a value every report has another one of, or none.
_HEAD = re.compile(r"^(.{1,200}?):\s+(?=\S)")
_ONLY_VARIABLES = re.compile(r"[\W_]*(?:<\*>[\W_]*)+")
_URL_SCHEME = re.compile(r"\b(?:https?|wss?|s3|gs|file)://")  # "https://<*>" is a value too
_WORD_HEAD = re.compile(r"""^(?!["'`])\S{1,120}\s+(?=\S)""")  # a quoted word first is the subject: 'charmap' codec
# A value appended at the end: after ": " or ", ", or in brackets. A value after a plain space is an argument of
# the sentence (``for user "x"``, ``from 'y'``) and stays, so that ``…, database "x", SSL off`` and ``…,
# database "x"`` keep the same words.
_TAIL = re.compile(r"""(?:[:,]\s+|\s*(?=[(\[]))(?:\([^()]{0,300}\)|\[[^\[\]]{0,300}\]|\S{1,300})[.,;]?$""")
# A reference in brackets at the end: "(Background on this error at: https://sqlalche.me/e/…)", "(see https://…)".
_LINK_TAIL = re.compile(r"[(\[][^()\[\]]{0,60}https?://\S+[)\]][.,;]?")
# Ruby prints the raising frame first: "/app/x.rb:12:in `initialize': FATAL: …".
_RUBY_FRAME = re.compile(r"^\S+:\d+:in [`'][^`']{1,120}'\s*:\s+")
# A line with nothing but level words left ("Error", "ERROR in ./src/a.ts 1:2" once the location is gone).
_SAYS_NOTHING = re.compile(
    r"(?i)[\W\d_]*(?:(?:error|err|fatal|warning|warn|exception|failure|in|at|uncaught|unhandled)"
    r"[\W\d_]*)*"
)
_KEY_WORD_END = re.compile(r"\b(?:port|code|status|errno|exit|signal|error|line|version)\W{0,3}$", re.IGNORECASE)
# A message field's label in an error object printed over several lines ("message: 'The security token…',").
_MESSAGE_FIELD = re.compile(r"""^["']?(?:message|msg|errorMessage|error_message|detail|reason)["']?\s*[:=]\s*""")
# An error object's status field: node's "statusCode: 403," and the AWS Go SDK's "status code: 403, request id: …".
_STATUS_FIELD = re.compile(
    r"""^[{\s]*["']?(?:statusCode|status_code|status code|httpStatus|http_status|code)["']?\s*[:=]\s*([45]\d\d)\b""",
    re.IGNORECASE,
)
_CARETS = re.compile(r"^\s*[\^~]{2,}[\s\^~-]*$")
_WORDS = re.compile(r"[A-Za-z]{2,}")
_JSON_LABEL = re.compile(r"^[A-Za-z][\w .-]{0,40}:\s*(?=[{\[]\s*\n)")
_JAVA_WRAPPER = re.compile(
    r"^(?:Caused by:\s*|Exception in thread \"[^\"]*\"\s*|Uncaught\s+"
    r"|Exception in thread [\w-]+(?: \([^)]*\))?:\s*)"
)  # Python's threading: "Thread-1 (_run):"


@dataclass(frozen=True)
class CoreError:
    """The error-carrying part of a message and the keys that identify it.

    ``lines`` are the core lines without wrappers (not normalised); ``exc_class`` is the
    most specific exception class named (None for a generic base or none); ``service_code``
    a trailing ``(CamelCase)`` code; ``tool`` the command a prompt or tool prefix names;
    ``http_status`` the status an error object's field states (``statusCode: 403``); ``chain`` every
    specific class the core lines name (a Java or Python chain names the wrapper and its cause).
    """

    lines: tuple[str, ...]
    exc_class: str | None = None
    service_code: str | None = None
    tool: str | None = None
    http_status: str | None = None  # from an error object's status field, a line the core leaves out
    chain: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The core lines joined with newlines."""
        return "\n".join(self.lines)

    def identity(self) -> dict[str, frozenset[str]]:
        """Identity keys besides error codes: ``exc`` (class), ``svc`` (service code), ``port`` (system port),
        ``http`` (an error object's status field), ``subject`` (the quoted names the statement is about).

        ``subject`` is a key of proof only (:data:`kgmem.learning.similarity.PROOF_ONLY_KINDS`): two reports
        of one kind of error about other names are still linked, so a fix learnt on one is offered to the
        other, but it acts only where the names are the same."""
        keys: dict[str, frozenset[str]] = {}
        # One error printed by two layers names the wrapper in one and the cause in the other
        # ("SSLHandshakeException: PKIX path building failed: …SunCertPathBuilderException" and "PKIX path
        # building failed: …SunCertPathBuilderException"): every class of the chain is a key, so two chains
        # conflict only when they share no class.
        classes = frozenset(self.chain) | ({self.exc_class} if self.exc_class else set())
        if classes:
            keys["exc"] = classes
        if self.service_code:
            keys["svc"] = frozenset({self.service_code})
        if self.http_status:
            keys["http"] = frozenset({self.http_status})
        ports = frozenset(p for p in _SYSTEM_PORT.findall(self.text) if int(p) < 1024)
        if ports:
            keys["port"] = ports
        # Which module is missing, which database does not exist: the template masks the name, yet it is
        # often what the fix is about ("No module named 'distutils'" vs "'distutils.core'").
        names = frozenset(name for line in self.lines for name in quoted_names(line))
        if names:
            keys["subject"] = names
        return keys


def extract_core(message: str) -> CoreError:
    """Find the line(s) of ``message`` that carry the error and strip the wrappers around them."""
    tool: str | None = None
    lines: list[str] = []
    message = _whole_json(_ANSI.sub("", message))
    for raw in message.splitlines():
        line, prompt_tool = _unwrap(raw)
        if prompt_tool is not None:
            tool = tool or prompt_tool
            continue
        if line:
            lines.extend(part for part in (_unwrap(p)[0] for p in line.splitlines()) if part)
    body = [ln for ln in lines if not _FRAME.match(ln) and not _FIELD_LINE.match(ln)]
    body = _drop_source_lines(lines, body)
    if not body:
        body = lines[-1:] if lines else [message.strip()[:_MAX_LINE_CHARS]]
    marked = [ln for ln in body if _ERRORISH.search(ln) and not _ADVICE.match(ln)]
    chosen = _distinct(_dedupe(marked or body)[:_MAX_CANDIDATES])[:_MAX_CORE_LINES]
    if tool is None:
        tool = _tool_of([raw for raw, _, _ in chosen])
    exc_class, service_code, core, named = None, None, [], {}
    for raw, line, exc in chosen:
        exc_class = exc_class or exc
        if exc or _QUALIFIED_EXC.search(raw):  # a line that states a class: the names of its chain
            named.update(dict.fromkeys(n for n in _NAMED_EXC.findall(raw) if not _is_generic(n)))
        if exc_class is None:
            qualified = [n for n in _QUALIFIED_EXC.findall(line) if not _is_generic(n)]
            dotted = _DOTTED_CLASS.match(line)
            if not qualified and dotted and not _is_generic(dotted.group(1)):
                qualified = [dotted.group(1)]
            exc_class = qualified[-1] if qualified else None
        line = _QUOTED_MESSAGE.sub(r"\2", line)
        code = _SERVICE_CODE.search(line)
        if code and service_code is None:
            service_code = code.group(1)
        core.append(line[:_MAX_LINE_CHARS])
    core = [c for c in core if c] or [chosen[0][0][:_MAX_LINE_CHARS]]
    return CoreError(tuple(core), exc_class, service_code, tool, _status_field(lines), tuple(named))


def _distinct(lines: list[str]) -> list[tuple[str, str, str | None]]:
    """(raw, canonical line, exception class) of each line saying something the others do not. Of two lines
    with one template (``[emerg] 1#1: host not found …`` and ``nginx: [emerg] host not found …``) the first
    stays; of a line whose template is inside another's, the shorter, less wrapped one stays
    (``io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED: …`` under a log line that wraps the same text) —
    unless it is an error object's ``message:`` field repeating the line above it
    (``{ InvalidClientTokenId: <message>`` then ``message: '<message>'``)."""
    canon = [(raw, *_canonical(raw)) for raw in lines]
    shapes = [template(line) for _, line, _ in canon]
    field = [bool(_MESSAGE_FIELD.match(_unwrap(raw)[0])) for raw in lines]
    drop: set[int] = set()
    for i, shape in enumerate(shapes):
        if shape in shapes[:i]:
            drop.add(i)
            continue
        if len(_WORDS.findall(shape)) < 3:
            continue
        for j, other in enumerate(shapes):
            if j != i and shape != other and shape in other:
                drop.add(i if field[i] else j)
    keep = [c for n, c in enumerate(canon) if n not in drop and c[1]]
    # Lines with only level words or only a value left say nothing; a line ending in ':' introduces the
    # next one ("⨯ Unable to compile TypeScript:", then the error) unless that one is only a value.
    said = [c for c in keep if not _SAYS_NOTHING.fullmatch(c[1]) and not _is_value(c[1])]
    said = [c for n, c in enumerate(said) if not (c[1].endswith(":") and n + 1 < len(said))]
    return said or keep or canon[:1]


def _status_field(lines: list[str]) -> str | None:
    """The HTTP status an error object's field states (``statusCode: 403``, ``status code: 403, request id: …``)."""
    for line in lines:
        found = _STATUS_FIELD.match(line)
        if found:
            return found.group(1)
    return None


def _canonical(line: str) -> tuple[str, str | None]:
    """A chosen line without what still wraps its message: a location or id head, a prefix in another
    script, a tool name, severity words and exception classes (``psql: error: …``; ``OperationalError:
    FATAL: …``), as often as they nest. Returns the line and the first specific exception class."""
    exc_class = None
    line = _strip_variable_tail(_strip_variable_head(_strip_tags(_LOCALE_PREFIX.sub("", line))))
    for _ in range(6):
        before = line
        line = _LEVEL_WORD.sub("", _strip_tool(line))
        line, exc = _strip_exception(line)
        exc_class = exc_class or exc
        line = _MESSAGE_FIELD.sub("", _LOCALE_PREFIX.sub("", line)).strip().rstrip(",;").rstrip()
        line = _drop_advice_sentences(line)
        if line == before:
            break
    return line, exc_class


def _drop_advice_sentences(line: str) -> str:
    """The error's sentences without the advice that follows them on the same line ("… does not exist.
    Learn more: https://…", "… If you want to use this action from GitHub.com, see …"): tools reword
    and drop their advice between versions; the first sentence always stays."""
    parts = _SENTENCE.split(line)
    keep = len(parts)
    while keep > 1 and _ADVICE.match(parts[keep - 1]):
        keep -= 1
    return line if keep == len(parts) else " ".join(parts[:keep])


def _strip_tags(line: str) -> str:
    tags = _TAGS.match(line)
    return line[tags.end() :] if tags and not error_keys(tags.group(0)) else line


def _strip_variable_head(line: str) -> str:
    """``src/main.c:3:10: fatal error: …`` → ``fatal error: …``, ``1#1: host not found`` → ``host not
    found``, ``fb63a8b6-… Task timed out`` → ``Task timed out``: a head (up to ``: `` or the first space)
    that is only variables (a path, a location, ids) and carries no error code (``404 Not Found`` keeps
    its status). Only at the start of a line: after a level word the ``<name>:`` is the subject
    (``fatal error: foo.h: No such file``)."""
    frame = _RUBY_FRAME.match(line)
    if frame:
        return line[frame.end() :]
    for head in (_HEAD.match(line), _WORD_HEAD.match(line)):
        if head and _is_value(head.group(0)) and _WORDS.search(line[head.end() :]):
            return line[head.end() :]
    return line


def _strip_variable_tail(line: str) -> str:
    """``No space left on device: '/tmp/x'`` → ``No space left on device``, ``… circular import) (/a/b.py)``
    → ``… circular import)``: tails that are only values, as often as they repeat (``from 'werkzeug.urls'
    (/site-packages/werkzeug/urls.py)``), so that a report with the value and one without agree. A value
    after a key word (``port 22``, ``exit code 137``) or carrying an error code stays."""
    for _ in range(4):
        tail = _TAIL.search(line)
        link = tail is not None and _LINK_TAIL.fullmatch(tail.group(0).strip())
        if not tail or not (link or _is_value(tail.group(0))) or _KEY_WORD_END.search(line[: tail.start()]):
            break
        rest = line[: tail.start()].rstrip()
        if len(_WORDS.findall(rest)) < 2:
            break
        line = rest
    return line


def _is_value(text: str) -> bool:
    """Whether ``text`` templates to variables and punctuation only, and names no error code."""
    shape = _URL_SCHEME.sub("", template(text)).strip(": ")
    return bool(_ONLY_VARIABLES.fullmatch(shape)) and not error_keys(text)


def _unwrap(raw: str) -> tuple[str, str | None]:
    """One line without its envelopes; (text, tool) where tool is set for a shell-prompt line."""
    line = raw.strip()
    for _ in range(6):  # envelopes nest: "api_1 | 2024-… ERROR {"msg": …}"
        before = line
        line = _CONTAINER.sub("", line, count=1)
        prompt = _PROMPT.match(line)
        if prompt and not _ERRORISH.search(prompt.group(1).split(" ", 1)[0]):
            word = _COMMAND_WORD.match(prompt.group(1))
            return "", (word.group(1).lower() if word else "")
        markdown = _MARKDOWN.match(line)
        if markdown:
            line = markdown.group(1).strip()
        line = _strip_json(line)
        line = _strip_logfmt(line)
        line = _JAVA_WRAPPER.sub("", line)
        for rule in _PREFIXES:
            line = rule.sub("", line, count=1)
        line = line.strip()
        if line == before:
            break
    return line, None


def _whole_json(message: str) -> str:
    """A message that is one (pretty-printed) JSON document: its message field(s), one per line."""
    text = _JSON_LABEL.sub("", message.strip(), count=1)  # "err: {\n  "code": 401, …}": a label, then the document
    if not text or text[0] not in "[{" or len(text) > _MAX_JSON_CHARS:
        return message
    try:
        value = json.loads(text)
    except ValueError:
        return message
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return message
    out = []
    for item in value:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            found = _message_of(item)
            if found:
                out.append(found)
    return "\n".join(out) if out else message


def _strip_json(line: str) -> str:
    """``{"level":"error","msg":"boom"}`` → ``boom``; text before the JSON is kept."""
    start = line.find("{")
    if start < 0 or len(line) > _MAX_JSON_CHARS:
        return line
    blob = line[start:]
    value = _parse_object(blob)
    if not isinstance(value, dict):
        # an envelope quoted or bracketed as a whole: "{"message":"Insufficient Balance",…}"
        end = line.rfind("}") + 1
        if end <= start or line[end:].strip(" \"')]") or not isinstance(value := _parse_object(line[start:end]), dict):
            return line
    text = _message_of(value)
    if text is None:
        return line
    prefix = line[:start].rstrip(" :-(\"'")
    return f"{prefix}: {text}" if prefix else text


def _parse_object(blob: str) -> object:
    try:
        return json.loads(blob)
    except ValueError:
        pass
    try:  # Python reprs of dicts: {'error': {'message': '…'}}
        return ast.literal_eval(blob) if blob.count("{") < 20 else None
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _message_of(value: dict) -> str | None:
    for key in ("msg", "message", "error", "err", "detail", "error_message", "errorMessage", "reason"):
        inner = value.get(key)
        if isinstance(inner, str) and inner.strip():
            nested = _parse_object(inner.strip()) if inner.lstrip().startswith("{") else None
            # a body that is JSON again: "message": "{\"message\":\"Bad credentials\"}"
            return (_message_of(nested) if isinstance(nested, dict) else None) or inner.strip()
        if isinstance(inner, dict):
            found = _message_of(inner)
            if found:
                return found
    return None


def _strip_logfmt(line: str) -> str:
    """``time=… level=warning msg="disk full" err="…"`` → ``disk full: …`` (msg, then err)."""
    if not _LOGFMT.match(line):
        return line
    parts = []
    for found in _LOGFMT_MSG.finditer(line):
        text = found.group(1) if found.group(1) is not None else found.group(2)
        parts.append(text.replace('\\"', '"').strip())
    return ": ".join(p for p in parts if p) or line


def _drop_source_lines(lines: list[str], body: list[str]) -> list[str]:
    # The source line a Python frame prints under `File "…", line N` is code, not the error.
    drop: set[int] = set()
    for i, line in enumerate(lines[:-1]):
        if line.lstrip().startswith('File "') and not _EXC_PREFIX.match(lines[i + 1]):
            drop.add(i + 1)
        # node / rustc / clang underline the code they print with carets: "import x from 'y';" then "^^^^^^"
        if _CARETS.match(lines[i + 1]) and not _EXC_PREFIX.match(line):
            drop.add(i)
    keep_ids = {id(x) for x in body}
    return [ln for i, ln in enumerate(lines) if id(ln) in keep_ids and i not in drop]


def _dedupe(lines: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for line in lines:
        seen.setdefault(_SPACES.sub(" ", line).strip(), None)
    return list(seen)


def _strip_exception(line: str) -> tuple[str, str | None]:
    found = _EXC_PREFIX.match(line)
    if not found:
        dotted = _DOTTED_CLASS.match(line)  # Python's last traceback line: "httpx.ReadTimeout: timed out"
        if not dotted or not line[dotted.end() :].strip():
            return line, None
        name = dotted.group(1)
        return line[dotted.end() :].strip(), (None if _is_generic(name) else name)
    name = found.group(1) or found.group(3)
    rest = line[found.end() :].strip()
    return (rest or line), (None if name is None or _is_generic(name) else name)


def _is_generic(name: str) -> bool:
    return name in GENERIC_EXCEPTIONS or bool(_GENERIC_PATTERN.match(name))


def _tool_of(lines: list[str]) -> str | None:
    for line in lines:
        found = _TOOL_PREFIX.match(line)
        if found:
            return found.group(1).lower()
    return None


def _strip_tool(line: str) -> str:
    found = _TOOL_PREFIX.match(line)
    if found:
        return line[found.end() :].lstrip(": ").strip()
    word = line.split(":", 1)[0]
    if word.lstrip("-") in _SHELLS and ":" in line:
        return line.split(":", 1)[1].strip()
    return line

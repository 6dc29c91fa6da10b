"""A domain from a JSON or YAML file of tool contracts (``--registry path/tools.yaml``).

Wherever a registry ref is taken (``--registry`` of ``tao train / serve / run / eval / plan``,
``TAO_REGISTRY``), a path ending in ``.json``, ``.yaml`` or ``.yml`` names a contract file::

    name: helpdesk                      # optional (default: the file's stem)
    lexicon:                            # optional: contract_lexicon() keywords
      me_field: employee_id             #   the argument the session user fills
      name_stop_en: [VPN, Laptop]       #   capitalized words that never start a name
      text_cues: ["问题是", "about"]      #   where free text starts
      show_free_text: true
    value_words:                        # optional: words requests use for enum values
      system: {email: [邮箱, mailbox]}
    eval_sets: {independent: eval_sets/handwritten.jsonl}   # optional, relative to the file
    tools:
      - name: reset_password            # every ToolSpec field (args_schema, response_schema,
        description: ...                # extract, permission, observation_rules, ...), or the
        args_schema: {...}              # short form of tao.domains.contract (``arguments``)
        examples:                       # optional: example requests per language (a list here
          zh:                           # is ToolSpec.examples, example argument objects)
            - {text: 帮我重置VPN密码, args: {employee_id: <ME>, system: vpn}}
          en:
            - {text: reset my VPN password, args: {employee_id: <ME>, system: vpn}}
        responses:                      # optional: real response bodies (or response_samples),
          - {reset_id: RST-123456, system: vpn}   # checked at load time (tao.domains.samples)
    examples:                           # optional: chains over several tools
      - text: reset the VPN password of Grace Kim
        lang: en
        steps:
          - {tool: find_employee, args: {name: Grace Kim}}
          - {tool: reset_password, args: {employee_id: "${t1.employee_id}", system: vpn}}

A bare list is the ``tools`` list. Every bad entry is a :class:`ContractFileError` naming the file
and the JSON pointer of the entry (pydantic's validation errors mapped to pointers:
``tools.yaml: /tools/2/permission: Input should be 'read', 'write' or 'high_risk'``); duplicate
keys are errors, never last-wins. YAML needs PyYAML (in the lock); YAML timestamps stay strings.

A file domain has no mock handlers: ``tao run`` against it calls the real tools at ``--tools-url``
(``URL/tools/NAME``). :mod:`tao.domains.contract_dump` writes a domain in this form
(``python -m tao.domains.contract_dump MODULE:ATTR tools.yaml``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tao.contracts.domain import Domain, RequestExample
from tao.contracts.tools import ToolSpec
from tao.domains import DomainLoadError
from tao.domains.contract import (
    ContractError,
    _short_tool,  # pyright: ignore[reportPrivateUsage]
    contract_domain,
    contract_lexicon,
)

SUFFIXES = (".json", ".yaml", ".yml")
LANGS = ("zh", "en")
SAMPLE_KEYS = ("responses", "response_samples")
_LEXICON_KEYS = {
    "me_field",
    "name_stop_en",
    "text_cues",
    "show_free_text",
    "cities_zh",
    "cities_en",
    "name_block_zh",
}
_SHORT_KEYS = {"name", "description", "arguments", "outputs_for_references", "permission"}
_TOP_KEYS = {"name", "lexicon", "value_words", "eval_sets", "tools", "examples"}


class ContractFileError(DomainLoadError, ContractError):
    """A contract file that does not read or has a bad entry: ``file``, the entry's JSON ``pointer``
    and the ``reason``; ``errors`` lists every ``(pointer, reason)`` pydantic found in that entry."""

    def __init__(self, file: str, pointer: str, reason: str, errors: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(file, f"{pointer or '/'}: {reason}")
        self.file, self.pointer = file, pointer
        self.errors = list(errors) or [(pointer, reason)]


def is_contract_file(ref: str) -> bool:
    """Whether a registry ref names a contract file (by its suffix)."""
    return ref.lower().endswith(SUFFIXES)


def _token(p: object) -> str:
    return str(p).replace("~", "~0").replace("/", "~1")


def pointer(*parts: object) -> str:
    """A JSON pointer from path parts (``pointer("tools", 2, "name")`` -> ``/tools/2/name``)."""
    return "".join("/" + _token(p) for p in parts)


# ------------------------------------------------------------------ reading (JSON / YAML)
def _no_dup_pairs(file: str):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in pairs:
            if k in out:
                raise ContractFileError(file, "", f"duplicate key {k!r}")
            out[k] = v
        return out

    return hook


def _yaml_load(text: str, file: str) -> Any:
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is in the lock
        raise ContractFileError(
            file, "", "YAML contract files need PyYAML (pip install pyyaml); JSON works without"
        ) from None

    class Loader(yaml.SafeLoader):
        """SafeLoader without timestamps (dates stay strings, as in JSON) and without duplicate keys."""

    Loader.yaml_implicit_resolvers = {
        k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
        for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for k_node, v_node in node.value:
            k = loader.construct_object(k_node, deep=True)
            if k in out:
                line = k_node.start_mark.line + 1
                raise ContractFileError(file, "", f"duplicate key {k!r} (line {line})")
            out[k] = loader.construct_object(v_node, deep=True)
        return out

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        return yaml.load(text, Loader=Loader)
    except yaml.YAMLError as exc:
        raise ContractFileError(file, "", f"not valid YAML: {exc}") from None


def read_contract_file(path: str | Path) -> Any:
    """The parsed document of a contract file (JSON or YAML by suffix)."""
    p = Path(path)
    file = str(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ContractFileError(file, "", f"cannot read the file ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ContractFileError(file, "", f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    if p.suffix.lower() == ".json":
        try:
            return json.loads(text, object_pairs_hook=_no_dup_pairs(file))
        except json.JSONDecodeError as exc:
            raise ContractFileError(file, "", f"not valid JSON: {exc.msg} (line {exc.lineno})") from None
    return _yaml_load(text, file)


# ------------------------------------------------------------------ document -> domain
def _pydantic(file: str, at: str, exc: ValidationError) -> ContractFileError:
    errs = [(at + pointer(*e.get("loc", ())), str(e.get("msg", ""))) for e in exc.errors()]
    first_ptr, first_msg = errs[0]
    more = f" (+{len(errs) - 1} more)" if len(errs) > 1 else ""
    return ContractFileError(file, first_ptr, first_msg + more, errs)


def _tool(file: str, i: int, entry: Any) -> ToolSpec:
    at = pointer("tools", i)
    try:
        if "args_schema" in entry:
            return ToolSpec.model_validate(dict(entry))
        if "arguments" in entry:
            unknown = sorted(set(entry) - _SHORT_KEYS)
            if unknown:
                at_key = f"{at}/{_token(unknown[0])}"
                raise ContractFileError(
                    file, at_key, f"unknown key of a short-form tool ({sorted(_SHORT_KEYS)})"
                )
            return _short_tool(entry)
    except ValidationError as exc:
        raise _pydantic(file, at, exc) from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ContractFileError(file, at, f"bad short-form tool: {exc}") from None
    raise ContractFileError(
        file, at, "a tool needs 'name' and 'args_schema' (or the short form's 'arguments')"
    )


def _str_map(file: str, at: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ContractFileError(file, at, f"expected an object, got {type(value).__name__}")
    return value


def _steps(file: str, at: str, raw: Any, tools: Mapping[str, ToolSpec]) -> tuple[tuple[str, dict], ...]:
    if not isinstance(raw, list) or not raw:
        raise ContractFileError(file, at, "steps is a non-empty list of {tool, args}")
    out = []
    for j, st in enumerate(raw):
        sat = f"{at}/{j}"
        st = _str_map(file, sat, st)
        tool = st.get("tool")
        if tool not in tools:
            raise ContractFileError(file, f"{sat}/tool", f"unknown tool {tool!r}")
        out.append((str(tool), _args(file, f"{sat}/args", st.get("args", {}), tools[str(tool)])))
    return tuple(out)


def _args(file: str, at: str, raw: Any, spec: ToolSpec) -> dict[str, Any]:
    args = dict(_str_map(file, at, raw))
    props = spec.args_schema.get("properties", {})
    for k in args:
        if k not in props:
            raise ContractFileError(file, f"{at}/{_token(k)}", f"tool {spec.name!r} has no argument {k!r}")
    return args


def _example(
    file: str, at: str, raw: Any, lang: str, spec: ToolSpec | None, tools: Mapping[str, ToolSpec]
) -> RequestExample:
    if isinstance(raw, str) and spec is not None:
        raw = {"text": raw}
    ex = _str_map(file, at, raw)
    unknown = set(ex) - {"text", "args", "steps", "lang"}
    if unknown:
        raise ContractFileError(file, f"{at}/{_token(sorted(unknown)[0])}", "unknown key (text, args, steps)")
    text = ex.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ContractFileError(file, f"{at}/text", "an example needs its request text")
    lang = str(ex.get("lang", lang))
    if lang not in LANGS:
        raise ContractFileError(file, f"{at}/lang", f"language {lang!r} is not one of {list(LANGS)}")
    if "steps" in ex:
        steps = _steps(file, f"{at}/steps", ex["steps"], tools)
    elif spec is not None:
        steps = ((spec.name, _args(file, f"{at}/args", ex.get("args", {}), spec)),)
    else:
        raise ContractFileError(file, at, "a chain example needs steps")
    return RequestExample(text=text, lang=lang, steps=steps)


def _tool_examples(
    file: str, i: int, raw: Any, spec: ToolSpec, tools: Mapping[str, ToolSpec]
) -> list[RequestExample]:
    at = pointer("tools", i, "examples")
    out = []
    for lang, items in _str_map(file, at, raw).items():
        if lang not in LANGS:
            raise ContractFileError(
                file, f"{at}/{_token(lang)}", f"language {lang!r} is not one of {list(LANGS)}"
            )
        if not isinstance(items, list):
            raise ContractFileError(file, f"{at}/{lang}", "a list of examples")
        out += [_example(file, f"{at}/{lang}/{j}", e, lang, spec, tools) for j, e in enumerate(items)]
    return out


def examples_from_jsonl(path: str | Path, tools: Sequence[ToolSpec]) -> tuple[RequestExample, ...]:
    """Example requests from a JSON Lines file, one ``{"text", "lang", "steps": [{"tool", "args"}]}``
    per line (the chain form of a contract file's ``examples``); a bad line is a
    :class:`ContractFileError` whose pointer is ``/<line number>/...``."""
    file = str(path)
    by_name = {t.name: t for t in tools}
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as e:
            raise ContractFileError(file, f"/{n}", f"not JSON: {e.msg}") from None
        out.append(
            _example(
                file, f"/{n}", raw, str(raw.get("lang", "")) if isinstance(raw, dict) else "", None, by_name
            )
        )
    return tuple(out)


def domain_from_document(doc: Any, file: str, base: Path | None = None) -> Domain:
    """The :class:`Domain` of a parsed contract file (``file`` names it in errors; relative
    ``eval_sets`` paths are resolved against ``base``); its samples are not checked here."""
    return _build(doc, file, base)[0]


def _build(doc: Any, file: str, base: Path | None) -> tuple[Domain, dict[str, str]]:
    if isinstance(doc, list):
        doc = {"tools": doc}
    top = _str_map(file, "", doc)
    unknown = set(top) - _TOP_KEYS
    if unknown:
        raise ContractFileError(
            file, pointer(sorted(unknown)[0]), f"unknown key (expected {sorted(_TOP_KEYS)})"
        )
    entries = top.get("tools")
    if not isinstance(entries, list) or not entries:
        raise ContractFileError(file, "/tools", "a non-empty list of tool contracts")
    specs: list[ToolSpec] = []
    extras: list[dict[str, Any]] = []
    for i, entry in enumerate(entries):
        entry = dict(_str_map(file, pointer("tools", i), entry))
        extra: dict[str, Any] = {}
        if isinstance(entry.get("examples"), Mapping):  # request examples, not ToolSpec.examples
            extra["examples"] = entry.pop("examples")
        given = [k for k in SAMPLE_KEYS if k in entry]
        if len(given) > 1:
            raise ContractFileError(
                file, pointer("tools", i, given[1]), f"give {given[0]!r} or {given[1]!r}, not both"
            )
        if given:
            extra["samples"] = (given[0], entry.pop(given[0]))
        specs.append(_tool(file, i, entry))
        extras.append(extra)
    names = [t.name for t in specs]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise ContractFileError(file, pointer("tools", i, "name"), f"tool {n!r} is defined twice")
    tools = {t.name: t for t in specs}
    examples: list[RequestExample] = []
    samples: dict[str, list[Any]] = {}
    where: dict[str, str] = {}  # tool -> pointer of its samples
    for i, (spec, extra) in enumerate(zip(specs, extras, strict=True)):
        if "examples" in extra:
            examples += _tool_examples(file, i, extra["examples"], spec, tools)
        if "samples" in extra:
            key, raw = extra["samples"]
            if not isinstance(raw, list):
                raise ContractFileError(file, pointer("tools", i, key), "a list of response bodies")
            samples[spec.name] = list(raw)
            where[spec.name] = pointer("tools", i, key)
    chains = top.get("examples", [])
    if not isinstance(chains, list):
        raise ContractFileError(file, "/examples", "a list of chain examples {text, lang, steps}")
    examples += [_example(file, pointer("examples", j), e, "", None, tools) for j, e in enumerate(chains)]
    lex_raw = dict(_str_map(file, "/lexicon", top.get("lexicon", {})))
    for k in lex_raw:
        if k not in _LEXICON_KEYS:
            raise ContractFileError(
                file, pointer("lexicon", k), f"unknown lexicon key (expected {sorted(_LEXICON_KEYS)})"
            )
    show = bool(lex_raw.pop("show_free_text", False))
    try:
        lexicon = contract_lexicon(specs, examples, **lex_raw)
    except TypeError as exc:
        raise ContractFileError(file, "/lexicon", str(exc)) from None
    value_words = _value_words(file, top.get("value_words", {}))
    eval_sets = {
        str(k): (Path(v) if Path(v).is_absolute() or base is None else base / v)
        for k, v in _str_map(file, "/eval_sets", top.get("eval_sets", {})).items()
    }
    name = top.get("name") or Path(file).stem
    domain = contract_domain(
        str(name),
        specs,
        examples,
        value_words=value_words,
        lexicon=replace(lexicon, show_free_text=show),
        eval_sets=eval_sets,
        response_samples=samples,
    )
    return domain, where


def _value_words(file: str, raw: Any) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for arg, table in _str_map(file, "/value_words", raw).items():
        at = pointer("value_words", arg)
        out[str(arg)] = {}
        for value, words in _str_map(file, at, table).items():
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                raise ContractFileError(file, f"{at}/{_token(value)}", "a list of words (strings)")
            out[str(arg)][str(value)] = list(words)
    return out


def load_contract_file(path: str | Path) -> Domain:
    """The domain of a contract file, its response samples checked (:mod:`tao.domains.samples`)."""
    from tao.domains.samples import check_samples

    file = str(path)
    domain, where = _build(read_contract_file(path), file, Path(path).resolve().parent)
    domain.ref = str(Path(path).resolve())
    check_samples(domain, lambda tool, j: f"{where[tool]}/{j}")  # the error's ref names the file
    return domain


__all__ = [
    "ContractFileError",
    "domain_from_document",
    "is_contract_file",
    "load_contract_file",
    "pointer",
    "read_contract_file",
]

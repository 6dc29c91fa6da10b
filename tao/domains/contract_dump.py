"""A domain written back as a contract file (:mod:`tao.domains.contract_file`).

``python -m tao.domains.contract_dump REF [OUT.yaml|OUT.json]`` writes REF's domain (any registry
ref) as a contract file: its tools (``ToolSpec`` fields that differ from the defaults), request
examples per tool and language, chain examples, response samples, value words, the lexicon's
keywords and eval sets (relative to OUT's folder when under it). Loading the file gives the same
tools, examples, lexicon and samples (``tests/tao/domains/test_contract_file.py`` checks it for the
helpdesk domain, whose ``tools.yaml`` is written this way). Id kinds are derived again on load; a
domain with hand-made id kinds or a hand-written phrasing loses them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tao.contracts.domain import Domain
from tao.contracts.tools import ToolSpec
from tao.domains.contract import (
    _E,  # pyright: ignore[reportPrivateUsage]
    base_pattern,
    string_fields,
)


def _drop_defaults(spec: ToolSpec) -> dict[str, Any]:
    dump = spec.model_dump(mode="json")
    default = ToolSpec(name=spec.name, description="", args_schema={}).model_dump(mode="json")
    return {k: v for k, v in dump.items() if k in ("name", "description", "args_schema") or v != default[k]}


def _lexicon_doc(domain: Domain) -> dict[str, Any]:
    lex = domain.lexicon
    me_field = None
    if lex.me_kind:
        kind = next(k for k in lex.id_kinds if k.slot == lex.me_kind)
        for _t, name, prop in string_fields(domain.tools):
            core = base_pattern(str(prop.get("pattern", "")))[0].removeprefix("^").removesuffix("$")
            if kind.pattern.endswith(f"(?:{core}){_E}") and core:
                me_field = name
                break
    out: dict[str, Any] = {
        "me_field": me_field,
        "name_stop_en": sorted(lex.name_stop_en),
        "text_cues": list(lex.text_cues),
        "show_free_text": lex.show_free_text,
        "cities_zh": list(lex.cities_zh),
        "cities_en": list(lex.cities_en),
        "name_block_zh": sorted(lex.name_block_zh),
    }
    return {k: v for k, v in out.items() if v}


def dump_domain(domain: Domain, base: Path | None = None) -> dict[str, Any]:
    """The contract-file document of ``domain``: tools, request examples, response samples, value
    words, the lexicon's keywords and eval sets (relative to ``base`` when under it). Its id kinds
    are derived again on load; a domain with hand-made id kinds or phrasing loses them."""
    tools = []
    for spec in domain.tools:
        entry = _drop_defaults(spec)
        by_lang: dict[str, list[dict[str, Any]]] = {}
        for ex in domain.examples:
            if len(ex.steps) == 1 and ex.steps[0][0] == spec.name:
                by_lang.setdefault(ex.lang, []).append({"text": ex.text, "args": dict(ex.steps[0][1])})
        if by_lang:
            entry["examples"] = by_lang
        if domain.response_samples.get(spec.name):
            entry["responses"] = list(domain.response_samples[spec.name])
        tools.append(entry)
    chains = [
        {"text": ex.text, "lang": ex.lang, "steps": [{"tool": t, "args": dict(a)} for t, a in ex.steps]}
        for ex in domain.examples
        if len(ex.steps) > 1
    ]
    doc: dict[str, Any] = {"name": domain.name}
    lexicon = _lexicon_doc(domain)
    if lexicon:
        doc["lexicon"] = lexicon
    if domain.eval_sets:
        doc["eval_sets"] = {k: _rel(Path(v), base) for k, v in domain.eval_sets.items()}
    if domain.value_words:
        doc["value_words"] = {k: {v: list(w) for v, w in t.items()} for k, t in domain.value_words.items()}
    doc["tools"] = tools
    if chains:
        doc["examples"] = chains
    return doc


def _rel(p: Path, base: Path | None) -> str:
    if base is not None:
        try:
            return str(p.resolve().relative_to(base.resolve()))
        except ValueError:
            pass
    return str(p)


def dumps(doc: dict[str, Any], yaml_form: bool = True) -> str:
    """A contract-file document as YAML (or JSON) text."""
    if not yaml_form:
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    import yaml

    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=110, default_flow_style=None)


def main(argv: list[str] | None = None) -> int:
    """``python -m tao.domains.contract_dump REF [OUT.yaml|OUT.json]``: write REF's domain as a
    contract file (stdout without OUT; eval sets relative to OUT's folder)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-"):
        print(
            "usage: python -m tao.domains.contract_dump MODULE:ATTR|FILE [OUT.yaml|OUT.json]", file=sys.stderr
        )
        return 2
    from tao.domains import load_domain

    out = Path(argv[1]) if len(argv) > 1 else None
    doc = dump_domain(load_domain(argv[0]), out.parent if out else None)
    text = dumps(doc, yaml_form=out is None or out.suffix.lower() != ".json")
    if out is not None and out.suffix.lower() != ".json":
        text = (
            f"# {doc['name']} tool contracts, written by: python -m tao.domains.contract_dump {argv[0]} {out}\n"
            + text
        )
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
    return 0


__all__ = ["dump_domain", "dumps", "main"]

if __name__ == "__main__":
    raise SystemExit(main())

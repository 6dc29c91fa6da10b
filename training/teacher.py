"""``tao train --teacher URL``: more phrasings from any OpenAI-compatible endpoint (optional).

The training templates of a phrasing (derived from the contracts and examples, or hand-written)
are sent to a chat-completions endpoint — the project's own gateway, or any OpenAI-compatible
server — through the official ``openai`` client, asking for paraphrases that keep every slot
marker (``{employee}``, ``{system}``) exactly once. A paraphrase is accepted only when its markers
are exactly the template's, each once, and it adds no template syntax (``[ ]`` alternatives, the
held-out mark); anything else is dropped and counted (:class:`TeacherReport`). Accepted ones join
the intent's training templates, before its held-out last template, so the generated data expands
them like any other phrasing and the held-out templates stay unseen. Held-out templates are never
sent. A failed request (HTTP error, timeout) is counted and skipped: the teacher is never required.

Deterministic for a deterministic endpoint: templates are picked with ``random.Random(seed)``,
sent in a fixed order with ``temperature=0`` and the seed, and answers are read in order.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from tao.contracts.domain import Domain, IntentSpec, Phrasing
from training.generate import template_ids

_PH = re.compile(r"\{([^{}]*)\}")
_MARKER = re.compile(r"^[a-z]+[0-9]?$")
_LIST_PREFIX = re.compile(r"^\s*(?:[-*•]\s+|\d+[.)、]\s*|[（(]\d+[)）]\s*)")
_QUOTES = "\"'“”‘’「」"

SYSTEM = (
    "You rewrite requests that users send to an assistant which calls business tools. Keep the "
    "meaning and the language of the request. Every placeholder in curly braces, such as {name}, "
    "stands for a value: keep each one exactly once, unchanged, braces included, and add no other "
    "braces or square brackets. Answer with the rewrites only, one per line, without numbering."
)


@dataclass
class TeacherConfig:
    """Where to ask and how much (``--teacher``, ``--teacher-model``, ``--teacher-templates``...)."""

    url: str
    model: str = "auto"
    api_key: str = "none"
    per_template: int = 3  # paraphrases asked per template
    max_templates: int = 200  # templates sent (picked with the seed); 0 = all
    timeout_s: float = 30.0
    seed: int = 0
    progress: bool = True


@dataclass
class TeacherReport:
    """What the teacher gave: requests sent / failed, paraphrases accepted / dropped (by reason)."""

    requests: int = 0
    failed_requests: int = 0
    accepted: int = 0
    dropped_markers: int = 0  # a marker missing, repeated, changed or added
    dropped_other: int = 0  # empty, a copy of the template or of another answer, template syntax
    errors: list[str] = field(default_factory=list)  # the first few request failures

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def markers(text: str) -> Counter[str]:
    """The ``{marker}`` names of a template, with their counts."""
    return Counter(_PH.findall(text))


def check_paraphrase(template: str, candidate: str) -> str | None:
    """Why ``candidate`` cannot be a paraphrase of ``template`` (``"markers"`` / ``"other"``), or
    None when it can."""
    if not candidate or candidate == template:
        return "other"
    got, want = markers(candidate), markers(template)
    if got != want or any(n != 1 for n in got.values()) or not all(_MARKER.match(m) for m in got):
        return "markers"
    if "[" in candidate or "]" in candidate or candidate.startswith("~"):
        return "other"
    if len(candidate) > 4 * len(template) + 40:
        return "other"
    return None


def _lines(answer: str) -> list[str]:
    out = []
    for line in answer.splitlines():
        line = _LIST_PREFIX.sub("", line).strip().strip(_QUOTES).strip()
        if line:
            out.append(line)
    return out


def _prompt(template: str, lang: str, n: int) -> str:
    language = "Chinese" if lang == "zh" else "English"
    return f"Language: {language}\nRequest: {template}\nWrite {n} different rewrites of this request."


def _jobs(phrasing: Phrasing, cfg: TeacherConfig) -> list[tuple[int, str, int]]:
    """``(intent index, lang, template index)`` of the training templates to send."""
    jobs = []
    for i, spec in enumerate(phrasing.intents):
        for lang in ("zh", "en"):
            train_ids, _held = template_ids(spec, lang, phrasing.held_mark)
            texts = spec.zh if lang == "zh" else spec.en
            first = {texts[t]: t for t in reversed(train_ids)}  # a repeated phrasing is sent once
            jobs += [(i, lang, t) for t in train_ids if first[texts[t]] == t]
    if cfg.max_templates and len(jobs) > cfg.max_templates:
        jobs = sorted(random.Random(cfg.seed).sample(jobs, cfg.max_templates))
    return jobs


def _with_templates(spec: IntentSpec, extra: dict[str, list[str]]) -> IntentSpec:
    """The intent with ``extra`` templates inserted before each language's last (held-out) one."""
    kw = {}
    for lang in ("zh", "en"):
        ts = list(getattr(spec, lang))
        add = [t for t in extra.get(lang, []) if t not in ts]
        if add and ts:
            kw[lang] = tuple(ts[:-1] + add + ts[-1:])
    return replace(spec, **kw) if kw else spec


def teach(domain: Domain, cfg: TeacherConfig, client: Any = None) -> tuple[Domain, TeacherReport]:
    """``domain`` with the accepted paraphrases in its phrasing (it must have one: derive it first
    with :func:`training.derive.with_phrasing`), and the report."""
    if domain.phrasing is None:
        raise ValueError(
            "the teacher paraphrases a phrasing: derive it first (training.derive.with_phrasing)"
        )
    import openai
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    client = client or openai.OpenAI(
        base_url=cfg.url.rstrip("/"), api_key=cfg.api_key, timeout=cfg.timeout_s, max_retries=0
    )
    phrasing = domain.phrasing
    report = TeacherReport()
    extra: dict[int, dict[str, list[str]]] = {}
    jobs = _jobs(phrasing, cfg)
    with Progress(
        TextColumn("teacher paraphrases"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("accepted {task.fields[ok]} dropped {task.fields[bad]} failed {task.fields[fail]}"),
        disable=not cfg.progress,
    ) as bar:
        task = bar.add_task("teacher", total=len(jobs), ok=0, bad=0, fail=0)
        for i, lang, t in jobs:
            template = getattr(phrasing.intents[i], lang)[t]
            report.requests += 1
            try:
                resp = client.chat.completions.create(
                    model=cfg.model,
                    messages=[
                        {"role": "system", "content": SYSTEM},
                        {"role": "user", "content": _prompt(template, lang, cfg.per_template)},
                    ],
                    temperature=0,
                    seed=cfg.seed,
                )
                answer = (resp.choices[0].message.content or "") if resp.choices else ""
            except openai.OpenAIError as exc:
                report.failed_requests += 1
                if len(report.errors) < 5:
                    report.errors.append(f"{template!r}: {type(exc).__name__}: {str(exc)[:160]}")
                bar.update(task, advance=1, fail=report.failed_requests)
                continue
            taken = extra.setdefault(i, {}).setdefault(lang, [])
            for cand in _lines(answer)[: cfg.per_template]:
                why = check_paraphrase(template, cand)
                if why is None and cand in taken:
                    why = "other"
                if why == "markers":
                    report.dropped_markers += 1
                elif why is not None:
                    report.dropped_other += 1
                else:
                    taken.append(cand)
                    report.accepted += 1
            bad = report.dropped_markers + report.dropped_other
            bar.update(task, advance=1, ok=report.accepted, bad=bad)
    intents = [_with_templates(s, extra.get(i, {})) for i, s in enumerate(phrasing.intents)]
    return replace(domain, phrasing=replace(phrasing, intents=intents)), report


__all__ = ["SYSTEM", "TeacherConfig", "TeacherReport", "check_paraphrase", "markers", "teach"]

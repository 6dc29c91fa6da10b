"""Registry-driven synthetic data: requests (zh/en) with their target plans, in several splits.

``python -m training.generate --n 120000 --out data/`` writes ``train.jsonl`` and the evaluation
splits (see :data:`SPLITS`). Every row is reproducible from ``(seed, split, index)``.

Each row: ``request``, ``user_id`` (session user or null), ``today``, ``target`` (the exact
model output: compact JSON with slot tokens), ``expected`` (the contract object with literal
values, what :func:`thought_model.output_parse.parse_output` must return), ``intent``, ``template``,
``lang``, ``split``.

The domain (tools, lexicon, phrasing) is a parameter: ``--registry MODULE:ATTR`` / ``TAO_REGISTRY``,
default the reference domain (:mod:`tao.domains.reference`).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from tao.contracts import SessionState, ToolSpec
from tao.contracts.domain import Domain, IntentSpec, Phrasing, SlotValues
from tao.domains import load_domain
from thought_model.entities import ME_SLOT, perceive
from thought_model.grammar import dumps_compact, free_text_kinds
from thought_model.prompt import prepare_prompt
from training.dates import (
    day_surface,
    period_surface,
    range_surface,
    span_surface,
    weekend_surface,
    when_surface,
)
from training.fillers import add_fillers
from training.noise import add_noise
from training.paraphrase import paraphrase

HELD_MARK = "~"
SPLITS = ("train", "test", "heldout_templates", "heldout_values", "heldout_combos")
"""train; test = new rows from training templates/values; heldout_templates = templates never
trained on; heldout_values = cities/names/texts/id ranges never trained on; heldout_combos =
pairs of intents combined in one request that never appear together in training."""
MULTI_INTENT = "multi_task"
_ALT = re.compile(r"\[([^\[\]]*)\]")
_PH = re.compile(r"\{([a-z]+[0-9]?)\}")


def _ph_key(x: str) -> str:
    """The key of a ``{key}`` placeholder (a list argument holds only placeholders)."""
    m = _PH.fullmatch(x)
    if m is None:
        raise ValueError(f"not a slot placeholder: {x!r}")
    return m.group(1)


@dataclass
class GenConfig:
    """Data generation settings."""

    n_train: int = 100_000
    n_eval: int = 400  # rows per evaluation split
    seed: int = 1234
    compose_prob: float = 0.15
    user_known_prob: float = 0.6
    noise: float = 0.5
    zh_prob: float = 0.5
    filler_prob: float = 0.4  # training rows only: neutral filler words/clauses (training.fillers)
    three_prob: float = 0.0  # training rows only: share of composed rows with three intents
    list_prob: float = 0.0  # training rows only: share of composed rows written as a list / both-and


_DERIVED: dict[int, tuple[Domain, Domain]] = {}


def _domain(domain: Domain | None) -> tuple[Domain, Phrasing]:
    """The domain with its phrasing: its own, else derived from its contracts and examples
    (:func:`training.derive.with_phrasing`, once per domain object)."""
    d = domain or load_domain()
    if d.phrasing is None:
        hit = _DERIVED.get(id(d))
        if hit is None or hit[0] is not d:
            from training.derive import with_phrasing

            hit = (d, with_phrasing(d))
            _DERIVED[id(d)] = hit
        d = hit[1]
    assert d.phrasing is not None
    return d, d.phrasing


def template_ids(spec: IntentSpec, lang: str, held_mark: str = HELD_MARK) -> tuple[list[int], list[int]]:
    """(training template indexes, held-out template indexes): the last template and those marked
    with ``held_mark`` (see :mod:`tao.domains.reference.phrasing.intents_extra`) are held out."""
    ts = spec.zh if lang == "zh" else spec.en
    held = [i for i, t in enumerate(ts) if t.startswith(held_mark) or i == len(ts) - 1]
    return [i for i in range(len(ts)) if i not in held], held


def heldout_pairs(intents: Sequence[IntentSpec]) -> set[tuple[str, str]]:
    """Intent pairs reserved for the held-out-combination split (fixed, independent of the seed)."""
    names = sorted(i.name for i in intents if i.composable)
    pairs = [(a, b) for a in names for b in names if a != b]
    rng = random.Random(20240601)
    return set(rng.sample(pairs, max(1, len(pairs) // 6)))


def _expand(template: str, rng: random.Random) -> str:
    return _ALT.sub(lambda m: rng.choice(m.group(1).split("|")), template)


class _Drop(Exception):
    """The example cannot be labelled consistently (perception missed a value): skip it."""


def _fill(
    template: str,
    lang: str,
    sampler: SlotValues,
    rng: random.Random,
    today: date,
    noise: float,
    heldout: bool = False,
    filler_prob: float = 0.0,
    lexicon=None,
    train: bool = False,
    reserved: frozenset[str] = frozenset(),
    traditional_prob: float = 0.0,
) -> tuple[str, dict[str, tuple[str, Any]]]:
    base = _expand(template, rng)
    for _ in range(4):  # paraphrase, fillers and noise never add a word that sets an argument
        text = paraphrase(base, lang, rng, heldout=heldout)
        if filler_prob:
            text = add_fillers(text, lang, rng, filler_prob)
        text = add_noise(text, lang, rng, noise)
        if not reserved or not adds_reserved(base, text, reserved):
            break
    else:
        text = base
    values: dict[str, tuple[str, Any]] = {}

    def repl(m: re.Match[str]) -> str:
        key = m.group(1)
        kind = key.rstrip("0123456789")
        if kind == "range":  # a clock range fills the start ({when}) and the duration ({dur})
            surf = range_surface(rng, today, lang, train)
            p = perceive(surf, today=today, lexicon=lexicon)
            by = {k.strip("<>").rstrip("0123456789"): v for k, v in p.slots.items()}
            if len(p.slots) != 2 or set(by) != {"DATE", "DUR"}:
                raise _Drop(f"range surface {surf!r}")
            values["when"] = (surf, by["DATE"])
            values["dur"] = (surf, by["DUR"])
            return surf
        if kind in ("wkend", "span"):  # a weekend (fills {day}) / last-next N days (fills {period})
            surf = weekend_surface(rng, lang) if kind == "wkend" else span_surface(rng, lang)
            p = perceive(surf, today=today, lexicon=lexicon)
            if len(p.slots) != 1:
                raise _Drop(f"date surface {surf!r}")
            values["day" if kind == "wkend" else "period"] = (surf, next(iter(p.slots.values())))
            return surf
        if kind in ("day", "period", "when"):
            surf = {"day": day_surface, "period": period_surface, "when": when_surface}[kind](
                rng, today, lang, train
            )
            p = perceive(surf, today=today, lexicon=lexicon)
            if len(p.slots) != 1:
                raise _Drop(f"date surface {surf!r}")
            val: Any = next(iter(p.slots.values()))
        else:
            surf, val = sampler.sample(kind)
            for _ in range(5):  # {name} and {name2} (etc.) should be different people
                if not any(k.rstrip("0123456789") == kind and v[1] == val for k, v in values.items()):
                    break
                surf, val = sampler.sample(kind)
        values[key] = (surf, val)
        return surf

    filled = _PH.sub(repl, text)
    if train and lang == "zh" and traditional_prob and rng.random() < traditional_prob:
        filled = to_traditional(filled)
    return filled, values


def _count(word: str, text: str) -> int:
    if word.isascii():
        return len(re.findall(r"(?<![A-Za-z])" + re.escape(word), text, re.I))
    return text.count(word)


def adds_reserved(before: str, after: str, words: frozenset[str]) -> bool:
    """Whether ``after`` (``before`` paraphrased / with fillers / noise) writes one of ``words``
    more often than ``before`` (placeholders ignored; ASCII words case-insensitive, as a word start:
    ``asap`` adds ``ASAP``, ``urgently`` adds ``urgent``)."""
    a, b = _PH.sub(" ", before), _PH.sub(" ", after)
    return any(_count(w, b) > _count(w, a) for w in words)


def to_traditional(text: str) -> str:
    """``text`` in traditional Chinese characters (OpenCC ``s2t``; perception folds them back)."""
    return _s2t().convert(text)


_S2T: list[Any] = []


def _s2t() -> Any:
    if not _S2T:
        import opencc

        _S2T.append(opencc.OpenCC("s2t"))
    return _S2T[0]


def _plan_steps(
    spec: IntentSpec,
    values: dict[str, tuple[str, Any]],
    user_id: str | None,
    registry: dict[str, ToolSpec],
    offset: int = 0,
) -> tuple[list[dict], list[str]]:
    """Literal plan steps (with symbolic slot markers kept as ('slot', key)) and missing fields."""
    steps: list[dict] = []
    missing: list[str] = []
    for i, (tool, args, deps) in enumerate(spec.steps):
        required = registry[tool].args_schema.get("required", [])
        out: dict[str, Any] = {}
        for name, v in args.items():
            if isinstance(v, list):
                items = [("slot", k) for k in map(_ph_key, v) if k in values]
                if items:
                    out[name] = items
                continue
            m = _PH.fullmatch(v) if isinstance(v, str) else None
            if m:
                if m.group(1) in values:
                    out[name] = ("slot", m.group(1))
                elif name in required:
                    missing.append(name)
            elif v == ME_SLOT:
                if user_id:
                    out[name] = ("me", None)
                else:
                    missing.append(name)
            else:
                out[name] = _shift_ref(v, offset)
        steps.append(
            {
                "step_id": f"t{i + 1 + offset}",
                "tool": tool,
                "arguments": out,
                "dependencies": [f"t{int(d[1:]) + offset}" for d in deps],
            }
        )
    return steps, list(dict.fromkeys(missing))


def _shift_ref(v: Any, offset: int) -> Any:
    if isinstance(v, str) and v.startswith("${t") and offset:
        return re.sub(r"\$\{t([1-7])\.", lambda m: "${t" + str(int(m.group(1)) + offset) + ".", v)
    return v


def _render(
    steps: list[dict],
    values: dict[str, tuple[str, Any]],
    perception,
    user_id: str | None,
    literal: bool,
    phrasing: Phrasing,
) -> list[dict]:
    def one(key: str, field: str) -> Any:
        kind = key.split("__")[0].rstrip("0123456789")
        val = values[key][1]
        if kind in phrasing.enum_kinds or literal:
            return val
        slot = perception.slot_for(phrasing.slot_types[kind], val)
        if slot is None and phrasing.slot_types[kind] == "TEXT":
            # a free-text argument given a value perception reads as a phone, an email, a city or a
            # name (update_user_profile's ``value`` "13912345678"): that slot, where the plan grammar
            # accepts its kind for the field; dropping the row left such an intent (a derived
            # domain's profile update) with its insufficient rows only
            slot = next((s for t in free_text_kinds(field) if (s := perception.slot_for(t, val))), None)
        if slot is None:
            raise _Drop(f"perception missed {kind}={val!r}")
        return slot

    def conv(v: Any, field: str) -> Any:
        if isinstance(v, tuple) and v[0] == "slot":
            return one(v[1], field)
        if isinstance(v, tuple) and v[0] == "me":
            return user_id if literal else ME_SLOT
        if isinstance(v, list):
            return [conv(x, field) for x in v]
        return v

    return [{**s, "arguments": {k: conv(v, k) for k, v in s["arguments"].items()}} for s in steps]


def make_example(
    parts: Sequence[tuple[IntentSpec, int]],
    lang: str,
    sampler: SlotValues,
    rng: random.Random,
    cfg: GenConfig,
    registry: dict[str, ToolSpec],
    heldout: bool = False,
    train_augment: bool = False,
    domain: Domain | None = None,
) -> dict[str, Any]:
    """One example from one intent (or several composed). Raises _Drop when it can't be labelled.

    ``train_augment`` (training rows only): filler words and the extra training connectors."""
    dom, ph = _domain(domain)
    today = date(2026, 1, 1) + timedelta(days=rng.randint(0, 364))
    me_id = getattr(sampler, "me_id", None)  # a derived phrasing samples the domain's own id kind
    user_id = (
        (me_id() if me_id else f"U{rng.randint(10_000_000, 99_999_999)}")
        if rng.random() < cfg.user_known_prob
        else None
    )
    texts: list[str] = []
    all_steps: list[dict] = []
    all_values: dict[str, tuple[str, Any]] = {}
    missing: list[str] = []
    for k, (spec, tidx) in enumerate(parts):
        template = (spec.zh if lang == "zh" else spec.en)[tidx].removeprefix(ph.held_mark)
        text, values = _fill(
            template,
            lang,
            sampler,
            rng,
            today,
            cfg.noise,
            heldout,
            cfg.filler_prob if train_augment else 0.0,
            dom.lexicon,
            train_augment,
            ph.reserved_words,
            ph.traditional_prob,
        )
        renamed = {f"{key}__{k}": v for key, v in values.items()}
        steps, miss = _plan_steps(spec, values, user_id, registry, offset=len(all_steps))
        for s in steps:
            s["arguments"] = {a: _rename(v, k) for a, v in s["arguments"].items()}
        all_steps += steps
        all_values.update(renamed)
        missing += miss
        texts.append(text)
    if len(parts) > 1:
        if missing:
            raise _Drop("composed request with missing fields")
        request = _join(texts, lang, rng, ph, train_augment, cfg.list_prob if train_augment else 0.0)
        intent = MULTI_INTENT
    else:
        request = texts[0]
        intent = parts[0][0].name
    session = SessionState(user_id=user_id, now=datetime(today.year, today.month, today.day, 9, 0))
    # the row's free text, a TEXT slot even where perception finds no cue for it
    known = [
        v[1]
        for k, v in all_values.items()
        if ph.label_free_text
        and isinstance(v[1], str)
        and ph.slot_types.get(k.split("__")[0].rstrip("0123456789")) == "TEXT"
    ]
    prepared = prepare_prompt(request, session, lexicon=dom.lexicon, known_text=known)
    perception = prepared.perception
    if missing:
        target_obj: dict[str, Any] = {
            "error": "insufficient_context",
            "required_fields": list(dict.fromkeys(missing)),
            "intent": intent,
        }
        expected = target_obj
    else:
        plan_slots = _render(all_steps, all_values, perception, user_id, literal=False, phrasing=ph)
        plan_lit = _render(all_steps, all_values, perception, user_id, literal=True, phrasing=ph)
        target_obj = {"version": "1.0", "intent": intent, "steps": plan_slots}
        expected = {"version": "1.0", "intent": intent, "steps": plan_lit}
    return {
        "request": request,
        "user_id": user_id,
        "today": today.isoformat(),
        "lang": lang,
        "intent": intent,
        "template": "+".join(f"{s.name}:{lang}:{t}" for s, t in parts),
        "target": dumps_compact(target_obj),
        "expected": expected,
        "prompt": prepared.text,
        "free_text": known,
    }


def _join(
    texts: list[str], lang: str, rng: random.Random, ph: Phrasing, train_augment: bool, list_prob: float
) -> str:
    """One request from the asks of a composed row: connectors between them, or (training rows,
    ``list_prob``) a numbered list or an English "both ... and ..."."""
    if list_prob and rng.random() < list_prob:
        parts = [t.strip().rstrip("。.!！?？；; ") for t in texts]
        style = rng.random()
        if lang == "en" and len(parts) == 2 and style < 0.3:
            return f"both {parts[0][:1].lower() + parts[0][1:]} and {parts[1][:1].lower() + parts[1][1:]}"
        if lang == "zh":
            marks = rng.choice([["1. ", "2. ", "3. "], ["1）", "2）", "3）"], ["一是", "二是", "三是"]])
            sep = rng.choice(["；", "。", " ", "\n"])
            head = rng.choice(["", "帮我办几件事：", "两件事：" if len(parts) == 2 else "三件事：", "麻烦："])
        else:
            marks = rng.choice([["1. ", "2. ", "3. "], ["1) ", "2) ", "3) "], ["- ", "- ", "- "]])
            sep = rng.choice(["; ", ". ", " ", "\n"])
            head = rng.choice(["", "a few things: ", "please: ", "can you do these: "])
        return head + sep.join(m + p for m, p in zip(marks, parts, strict=False))
    out = texts[0]
    for t in texts[1:]:
        conn = rng.choice(
            list(ph.connectors[lang]) + (list(ph.train_connectors[lang]) if train_augment else [])
        )
        out = out.rstrip("。.!！?？ ") + conn + t.strip()
    return out


def _rename(v: Any, k: int) -> Any:
    if isinstance(v, tuple) and v[0] == "slot":
        return ("slot", f"{v[1]}__{k}")
    if isinstance(v, list):
        return [_rename(x, k) for x in v]
    return v


def _pick_parts(
    split: str,
    rng: random.Random,
    cfg: GenConfig,
    lang: str,
    held_pairs: set[tuple[str, str]],
    phrasing: Phrasing,
) -> list[tuple[IntentSpec, int]]:
    # (a derived intent the examples write in one language only has no phrasing in the other)
    intents = [i for i in phrasing.intents if (i.zh if lang == "zh" else i.en)]

    def tmpl(spec: IntentSpec, heldout: bool) -> int:
        train_ids, held_ids = template_ids(spec, lang, phrasing.held_mark)
        return rng.choice(held_ids if heldout else train_ids)

    composable = [i for i in intents if i.composable]
    if split == "heldout_combos":
        names = {i.name for i in intents}
        a, b = rng.choice(sorted(p for p in held_pairs if p[0] in names and p[1] in names))
        by = {i.name: i for i in intents}
        return [(by[a], tmpl(by[a], False)), (by[b], tmpl(by[b], False))]
    if split in ("train", "test") and rng.random() < cfg.compose_prob:
        if split == "train" and cfg.three_prob and rng.random() < cfg.three_prob:
            while True:
                trio = rng.sample(composable, 3)
                pairs = {(x.name, y.name) for x in trio for y in trio if x is not y}
                if not pairs & held_pairs and sum(len(x.steps) for x in trio) <= 7:
                    return [(x, tmpl(x, False)) for x in trio]
        while True:
            a, b = rng.sample(composable, 2)
            if (a.name, b.name) not in held_pairs and len(a.steps) + len(b.steps) <= 7:
                return [(a, tmpl(a, False)), (b, tmpl(b, False))]
    spec = rng.choice(intents)
    return [(spec, tmpl(spec, split == "heldout_templates"))]


def iter_split(
    split: str,
    n: int,
    cfg: GenConfig,
    tools: Sequence[ToolSpec] | None = None,
    domain: Domain | None = None,
) -> Iterator[dict]:
    """Yield ``n`` labelled rows of ``split`` (deterministic for a given config and domain)."""
    dom, ph = _domain(domain)
    registry = {t.name: t for t in (tools or dom.tools)}
    held_pairs = heldout_pairs(ph.intents)
    rng = random.Random(f"{cfg.seed}:{split}")
    made = 0
    while made < n:
        lang = "zh" if rng.random() < cfg.zh_prob else "en"
        sampler = ph.value_sampler(lang=lang, heldout=(split == "heldout_values"), rng=rng)
        parts = _pick_parts(split, rng, cfg, lang, held_pairs, ph)
        try:
            row = make_example(
                parts,
                lang,
                sampler,
                rng,
                cfg,
                registry,
                heldout=(split == "heldout_templates"),
                train_augment=(split == "train"),
                domain=dom,
            )
        except _Drop:
            continue
        row["split"] = split
        made += 1
        yield row


def write_splits(
    out: Path, cfg: GenConfig, progress: bool = True, domain: Domain | None = None
) -> dict[str, int]:
    """Write every split of ``domain`` (default: ``TAO_REGISTRY`` / the reference) as JSONL under
    ``out``; returns row counts."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not progress,
    ) as bar:
        for split in SPLITS:
            n = cfg.n_train if split == "train" else cfg.n_eval
            task = bar.add_task(f"generating {split}", total=n)
            with open(out / f"{split}.jsonl", "w", encoding="utf-8") as fh:
                for i, row in enumerate(iter_split(split, n, cfg, domain=domain)):
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                    if i % 500 == 0:
                        bar.update(task, completed=i)
                bar.update(task, completed=n)
            counts[split] = n
    (out / "gen_config.json").write_text(json.dumps(asdict(cfg), indent=2))
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.generate", description=(__doc__ or "").splitlines()[0]
    )
    ap.add_argument("--out", type=Path, default=Path("data/plans"))
    ap.add_argument("--n", type=int, default=GenConfig.n_train, help="training rows")
    ap.add_argument("--n-eval", type=int, default=GenConfig.n_eval, help="rows per evaluation split")
    ap.add_argument("--seed", type=int, default=GenConfig.seed)
    ap.add_argument(
        "--compose-prob",
        type=float,
        default=GenConfig.compose_prob,
        help="share of train/test rows that combine two intents",
    )
    ap.add_argument(
        "--filler-prob",
        type=float,
        default=GenConfig.filler_prob,
        help="share of training rows that get neutral filler words",
    )
    ap.add_argument(
        "--registry",
        default=None,
        metavar="MODULE:ATTR",
        help="tool domain (default: $TAO_REGISTRY, else tao.domains.reference:domain)",
    )
    ap.add_argument(
        "--three-prob", type=float, default=0.0, help="share of composed training rows with 3 intents"
    )
    ap.add_argument("--list-prob", type=float, default=0.0, help="share of composed training rows as a list")
    a = ap.parse_args(argv)
    counts = write_splits(
        a.out,
        GenConfig(
            n_train=a.n,
            n_eval=a.n_eval,
            seed=a.seed,
            compose_prob=a.compose_prob,
            filler_prob=a.filler_prob,
            three_prob=a.three_prob,
            list_prob=a.list_prob,
        ),
        domain=load_domain(a.registry),
    )
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

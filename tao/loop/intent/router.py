"""The intent router: before planning, pick the tool subset (the "chain") a request needs.

Order of decision (:meth:`IntentRouter.route`):

1. **rules**: a tool named in the request (``get_trip``), or the request equal to one of the
   domain's examples (normalized), decides alone (branch ``rule``);
2. **classifier**: one-vs-rest logistic regression over masked, hashed text features
   (:mod:`.features`, :mod:`.model`), fit on the domain's intent examples (:mod:`.corpus`) in
   seconds or loaded from a fitted file whose fingerprint matches the registry. With
   ``clause_split`` each clause of "X and then Y" is scored too and a tool's score is its best over
   the whole request and the clauses, so both asks keep their tools;
3. **threshold**: below ``threshold`` the best tool does not win by default: the fallback branch
   (``clarify``: ask, naming the closest intents; ``general``: the general chain) is taken instead;
   so it is when the explicit "none of these" class (:data:`NONE`, fit on the out-of-scope rows,
   :mod:`.generated`) reaches ``none_threshold`` within ``none_lead`` of the best tool (thresholds
   calibrated on a validation split, :mod:`.calibrate`).

Above it the subset is every tool of each tool group (``ToolSpec.domain``: orders, invoices,
travel, ...) whose best score is at least ``relative`` x the best (top-k above a threshold, not
top-1), plus the tools whose outputs those tools take as references in the domain's chains
(``find_user`` before ``list_orders``), capped at ``max_tools`` by score. When the best tool leads
the second by less than ``widen_margin`` the groups of the top ``widen_top`` tools join too (an
uncertain route widens the subset, never cuts it).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from tao.contracts.domain import Domain
from tao.loop.intent.actions import Action, action_text, requested, unserved
from tao.loop.intent.config import FallbackBranch, RouterConfig
from tao.loop.intent.corpus import IntentRow, Split, domain_rows
from tao.loop.intent.features import FEATURES_VERSION, Masker, featurize
from tao.loop.intent.fields import unlisted_change
from tao.loop.intent.model import OvrLogistic

NONE = "__none__"
"""The explicit "none of these" class: out-of-scope training rows are its positives."""

_REF = re.compile(r"\$\{t([0-9]+)\.")
_SPLIT = re.compile(
    r"[，,]?\s*(?:然后|接着|之后再|再帮我|再|另外再|另外|还有|顺便|同时|并且|以及)|[；;]|[。？?！!]\s*(?=\S)"
    r"|\s*(?:,\s*)?\b(?:and then|then|also|plus|after that|as well as|and also)\b[,:]?\s*",
    re.IGNORECASE,
)
_NORM = re.compile(r"[\s，,。.？?！!：:；;\"'“”「」]+")


class RouteBranch(str, Enum):
    RULE = "rule"
    CLASSIFIER = "classifier"
    FALLBACK = "fallback"


@dataclass(frozen=True)
class RoutingDecision:
    branch: RouteBranch
    tools: tuple[str, ...]
    """The subset the plan grammar is restricted to (empty on the fallback branch)."""
    best: tuple[str, float] | None
    runner_up: tuple[str, float] | None = None
    scores: tuple[tuple[str, float], ...] = ()
    """The top tools and their probabilities, best first."""
    groups: tuple[str, ...] = ()
    clauses: int = 1
    rule: str | None = None
    fallback: FallbackBranch | None = None
    similarity: float | None = None
    none: float | None = None
    """The "none of these" class's probability (None: a model without it)."""
    widened: bool = False
    """The margin was below ``widen_margin``: the top tools' groups were added to the subset."""
    ms: float = 0.0

    @property
    def routed(self) -> bool:
        return self.branch is not RouteBranch.FALLBACK

    def margin(self) -> float:
        if self.best is None:
            return 0.0
        return self.best[1] - (self.runner_up[1] if self.runner_up else 0.0)

    def record(self) -> dict[str, Any]:
        """The trajectory payload of the routing event."""
        return {
            "branch": self.branch.value,
            "tools": list(self.tools),
            "groups": list(self.groups),
            "best": list(self.best) if self.best else None,
            "margin": round(self.margin(), 4),
            "scores": [[t, round(p, 4)] for t, p in self.scores],
            "clauses": self.clauses,
            "rule": self.rule,
            "fallback": self.fallback.value if self.fallback else None,
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "none": None if self.none is None else round(self.none, 4),
            "widened": self.widened,
            "ms": round(self.ms, 3),
        }


def split_clauses(text: str) -> list[str]:
    """The asks of a request split at connectives (``然后``, ``and then``, ``；``); pieces too short
    to be an ask are dropped."""
    pieces = [p.strip(" ，,。.") for p in _SPLIT.split(text)]
    return [p for p in pieces if len(p) >= 2]


def producers_of(domain: Domain) -> dict[str, set[str]]:
    """Tool -> the tools whose outputs it takes as ``${tN.x}`` in the domain's chains (phrasing
    intents and examples)."""
    out: dict[str, set[str]] = {}
    chains: list[list[tuple[str, Any]]] = [[(t, a) for t, a in ex.steps] for ex in domain.examples]
    if domain.phrasing is not None:
        chains += [[(s[0], s[1]) for s in spec.steps] for spec in domain.phrasing.intents]
    for steps in chains:
        for tool, args in steps:
            for v in args.values():
                for m in _REF.finditer(str(v)):
                    k = int(m.group(1)) - 1
                    if 0 <= k < len(steps) and steps[k][0] != tool:
                        out.setdefault(tool, set()).add(steps[k][0])
    return out


def fingerprint(tools: Sequence[str], config: RouterConfig, rows: int) -> str:
    key = "|".join(sorted(tools)) + f"#{config.dim}#{config.max_iter}#{config.l2}#{rows}#f{FEATURES_VERSION}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass
class IntentRouter:
    domain: Domain
    config: RouterConfig
    model: OvrLogistic
    masker: Masker
    producers: dict[str, set[str]] = field(default_factory=dict)
    exact: dict[str, frozenset[str]] = field(default_factory=dict)
    fit_s: float = 0.0
    loaded_from: str | None = None
    inscope: Any = None
    """The in-scope training rows (sparse), for the similarity floor."""

    # ---------------------------------------------------------------- building
    @classmethod
    def build(
        cls,
        domain: Domain,
        config: RouterConfig | None = None,
        parts: Sequence[Domain] | None = None,
        rows: Sequence[IntentRow] | None = None,
    ) -> IntentRouter:
        """Fit (or load) a router for ``domain``; ``parts`` are the domains whose phrasing and
        examples make the corpus (default: the domain itself); ``rows`` overrides the corpus."""
        cfg = config or RouterConfig()
        sources = list(parts) if parts else [domain]
        corpus = list(rows) if rows is not None else domain_rows(sources, Split.TRAIN)
        names = domain.tool_names()
        corpus = [r for r in corpus if r.tools <= set(names)]
        masker = Masker(domain.lexicon)
        producers: dict[str, set[str]] = {}
        for d in sources:
            for k, v in producers_of(d).items():
                producers.setdefault(k, set()).update(t for t in v if t in names)
        exact = {_NORM.sub("", r.text.lower()): r.tools for r in corpus if r.source in ("example", "intent")}
        fp = fingerprint(names, cfg, len(corpus))
        t0 = time.perf_counter()
        model, loaded = None, None
        if cfg.model_path and Path(cfg.model_path).exists():
            model = _load(Path(cfg.model_path), fp)
            loaded = cfg.model_path if model is not None else None
        # the in-scope rows for the similarity floor (only when it is on: featurizing them costs
        # seconds at start-up)
        X = (
            featurize([r.text for r in corpus if r.tools], masker, cfg.dim)
            if cfg.min_similarity > 0
            else None
        )
        if model is None:
            X_all = featurize([r.text for r in corpus], masker, cfg.dim)
            labels = [r.tools or frozenset({NONE}) for r in corpus]
            model = OvrLogistic.fit(X_all, labels, [*names, NONE], l2=cfg.l2, max_iter=cfg.max_iter)
            if cfg.model_path and not Path(cfg.model_path).exists():
                save(model, Path(cfg.model_path), fp)  # never overwrites another registry's file
        return cls(
            domain,
            cfg,
            model,
            masker,
            producers,
            exact,
            time.perf_counter() - t0,
            loaded,
            X.T.tocsr() if X is not None else None,
        )

    # ---------------------------------------------------------------- routing
    def scores(self, texts: Sequence[str]) -> np.ndarray:
        return self.model.predict_proba(featurize(texts, self.masker, self.config.dim))

    def route(self, text: str) -> RoutingDecision:
        t0 = time.perf_counter()
        dec = self._route(text)
        return _with_ms(dec, (time.perf_counter() - t0) * 1000)

    def _route(self, text: str) -> RoutingDecision:
        cfg = self.config
        names = self.model.classes
        clauses = split_clauses(text) if cfg.clause_split else []
        texts = [text] + (clauses if len(clauses) > 1 else [])
        F = featurize(texts, self.masker, self.config.dim)
        P = self.model.predict_proba(F)
        none = float(P[0, names.index(NONE)]) if NONE in names else 0.0
        if NONE in names:
            P[:, names.index(NONE)] = 0.0  # never a tool of the subset
        p = P.max(axis=0)
        sim = (
            float((F[:1] @ self.inscope).max())
            if self.inscope is not None and self.inscope.shape[1]
            else None
        )
        order = np.argsort(-p)
        top = tuple((names[j], float(p[j])) for j in order[:5])
        best, second = top[0], (top[1] if len(top) > 1 else None)
        named = [t for t in names if re.search(rf"(?<![a-z_]){re.escape(t)}(?![a-z_])", text)]
        hit = self.exact.get(_NORM.sub("", text.lower()))
        if named or hit:
            tools = named or sorted(hit or (), key=lambda t: -float(p[names.index(t)]))
            other = next(((t, v) for t, v in top if t not in tools), None)
            return RoutingDecision(
                RouteBranch.RULE,
                self._expand(tools, p),
                (tools[0], 1.0),
                other,
                top,
                groups=self._groups(tools),
                clauses=len(texts),
                rule="tool_named" if named else "example",
            )
        none_wins = none >= cfg.none_threshold and none - best[1] >= cfg.none_lead
        if best[1] < cfg.threshold or (sim is not None and sim < cfg.min_similarity) or none_wins:
            return RoutingDecision(
                RouteBranch.FALLBACK,
                (),
                best,
                second,
                top,
                clauses=len(texts),
                fallback=cfg.fallback,
                similarity=sim,
                none=none,
            )
        group = {t.name: t.domain for t in self.domain.tools}
        gscore: dict[str, float] = {}
        for j, name in enumerate(names):
            if name == NONE:
                continue
            g = group.get(name, name)
            gscore[g] = max(gscore.get(g, 0.0), float(p[j]))
        floor = max(cfg.min_score, cfg.relative * best[1])
        picked_groups = [g for g, v in sorted(gscore.items(), key=lambda kv: -kv[1]) if v >= floor]
        # every clause that clears the threshold keeps its own best tool's group
        # the groups the request is about (action check): the best tool's, any other the classifier
        # is as sure of (a second ask the clause splitter did not separate: "book R684 … Second
        # thing: update my email"), and each clause's best tool's
        about = {group.get(best[0], best[0])}
        about |= {g for g, v in gscore.items() if v >= max(cfg.about_min, cfg.about_relative * best[1])}
        for clause, row in zip(texts[1:], P[1:]) if len(texts) > 1 else ():
            j = int(np.argmax(row))
            if row[j] >= cfg.threshold:
                about.add(group.get(names[j], names[j]))
            elif cfg.action_check and requested(action_text(clause)):
                about.add(group.get(names[j], names[j]))  # an ask: its clause's tools are asked
                if group.get(names[j], names[j]) not in picked_groups:
                    picked_groups.append(group.get(names[j], names[j]))
        if cfg.action_check:
            about_names = [n for n in names if group.get(n, n) in about]
            norm = action_text(text)
            asked = unserved(norm, about_names)
            rule = "unserved_action:" + ",".join(sorted(a.value for a in asked))
            if not asked and cfg.field_check:
                specs = [t for t in self.domain.tools if t.name in about_names]
                tools_at = unlisted_change(norm, requested(norm), specs)
                rule = "unlisted_field:" + ",".join(tools_at)
                asked = frozenset({Action.CHANGE}) if tools_at else asked
            if asked:
                return RoutingDecision(
                    RouteBranch.FALLBACK,
                    (),
                    best,
                    second,
                    top,
                    clauses=len(texts),
                    rule=rule,
                    fallback=cfg.fallback,
                    similarity=sim,
                    none=none,
                )
        # a low margin (the best tool barely ahead of the next): widen, never cut — the groups of
        # the top ``widen_top`` tools all join the subset, the grammar decides among them
        widened = second is not None and best[1] - second[1] < cfg.widen_margin
        if widened:
            for t, _v in top[: cfg.widen_top]:
                g = group.get(t) or t
                if g not in picked_groups:
                    picked_groups.append(g)
        tools = [n for n in names if group.get(n, n) in picked_groups]
        tools.sort(key=lambda n: -float(p[names.index(n)]))
        return RoutingDecision(
            RouteBranch.CLASSIFIER,
            self._expand(tools, p),
            best,
            second,
            top,
            groups=tuple(picked_groups),
            clauses=len(texts),
            similarity=sim,
            none=none,
            widened=widened,
        )

    def _groups(self, tools: Sequence[str]) -> tuple[str, ...]:
        group = {t.name: t.domain for t in self.domain.tools}
        return tuple(dict.fromkeys(group.get(t, t) for t in tools))

    def _expand(self, tools: Sequence[str], p: np.ndarray) -> tuple[str, ...]:
        out = list(dict.fromkeys(tools))
        if self.config.expand_producers:
            for t in list(out):
                out += [x for x in sorted(self.producers.get(t, ())) if x not in out]
        if len(out) > self.config.max_tools:
            idx = {n: i for i, n in enumerate(self.model.classes)}
            keep = set(
                sorted(out, key=lambda n: -float(p[idx[n]]) if n in idx else 0.0)[: self.config.max_tools]
            )
            out = [t for t in out if t in keep]
        return tuple(out)


def _with_ms(d: RoutingDecision, ms: float) -> RoutingDecision:
    from dataclasses import replace

    return replace(d, ms=ms)


def save(model: OvrLogistic, path: Path, fp: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        path,
        W=model.W.astype(np.float16),
        b=model.b,
        classes=np.asarray(model.classes),
        fingerprint=np.asarray(fp),
    )


def _load(path: Path, fp: str) -> OvrLogistic | None:
    """The fitted model at ``path`` when its fingerprint is ``fp`` (else None: it is refit)."""
    try:
        z = np.load(path)
    except (OSError, ValueError):
        return None
    if str(z["fingerprint"]) != fp:
        return None
    return OvrLogistic(tuple(str(c) for c in z["classes"]), z["W"].astype(np.float32), z["b"])

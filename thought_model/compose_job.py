"""The composer's configuration and its per-request working state."""

from __future__ import annotations

from dataclasses import dataclass, field

from tao.contracts.plan import MAX_STEPS
from thought_model.clauses import Clause
from thought_model.engine.base import GenerationStats, PlanRequest, PlanResult
from thought_model.entities import Perception
from thought_model.sufficiency import SufficiencyConfig


@dataclass
class ComposerConfig:
    enabled: bool = True
    max_steps: int = MAX_STEPS
    refill: bool = True  # re-plan insufficient clauses with slots from other clauses / references
    refill_rounds: int = 2  # at most this many extra batched engine calls per generate()
    union_insufficient: bool = False  # whole insufficient + unfillable clause -> union of fields
    # (off: on the hand-written set it fixed no row and broke one)
    unservable_asks: bool = (
        True  # a clause's write lacking a value nothing provides (or "my" with no user) -> insufficient
    )
    dropped_asks: bool = True  # whole plan without any tool of an unfillable clause's intent -> insufficient
    reroute: bool = True  # user registry: a plan of unevidenced tools re-decoded over the evidenced ones
    unnamed_others: bool = True  # user registry: "my teammate's ..." served as the speaker -> insufficient
    sufficiency: SufficiencyConfig = field(default_factory=SufficiencyConfig)
    clean_whole: bool = True  # whole-request plan: drop repeated steps and a stray session-user chain
    clause_order: bool = True  # final plan: independent steps in the order of the clauses that ask them
    fan_out: bool = True  # final plan: one step per value of a coordinated list (thought_model.fanout)
    paired: bool = True  # final plan: one step per repeated value tuple (thought_model.paired)
    prune: bool = True  # final plan: drop steps the request gives no word for (thought_model.evidence)
    profile_updates: bool = True  # final plan: one update_user_profile per field the request sets
    status_words: bool = True  # final plan: list steps' status from the request's words
    periods: bool = (
        True  # final plan: a date range is one period, a greeting day none (thought_model.periods)
    )
    referents: bool = True  # final plan: "his / 她的" is the named person's id, not the speaker's
    follow_on: bool = True  # user registry: the read the request asks of the last step's result
    item_lists: bool = True  # a clause insufficient for a record id: the list / the named record's read
    linked_asks: bool = True  # reference registry: book the room found, weather of the profile's city
    linked_read: bool = True  # user registry: the record another record points to (my manager's email)
    trailing_asks: bool = True  # a clause failed: still add the last clauses' asks the whole plan lacks
    prefer_clause_args: bool = True  # same tools, order and links as the whole plan: the clauses' arguments
    misread_asks: bool = (
        True  # a whole plan reading another clause's slot in a tool that clause lacks: the clauses'
    )
    # code checks the model's insufficient_context answers (thought_model.sufficiency)


@dataclass
class ComposeJob:
    req: PlanRequest
    perception: Perception
    clauses: list[Clause] = field(default_factory=list)
    whole: PlanResult | None = None
    parts: list[PlanResult | None] = field(default_factory=list)
    stats: GenerationStats = field(default_factory=GenerationStats)
    how: str = "whole"
    borrowed: dict[int, set[int]] = field(default_factory=dict)  # clause -> clauses it took slots from
    located: set[int] = field(default_factory=set)  # clauses whose "there" was resolved once
    origin: dict[str, int] = field(default_factory=dict)  # composed step id -> the clause that planned it
    described: set[int] = field(default_factory=set)  # whole (-1) / clauses re-decoded with an uncued text
    descriptions: list[str] = field(default_factory=list)  # those uncued texts (values of the request)

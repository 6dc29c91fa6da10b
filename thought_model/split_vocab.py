"""The clause splitter's words for a user registry, derived from its contracts and lexicon.

The splitter (:mod:`thought_model.clauses`) was written for the reference domain: its verbs
(``check``, ``cancel``, ``查``), aspect nouns (``status``, ``物流``) and id kinds (``ORDER``,
``INV`` ...). For another registry, "reset my wifi password and list my open tickets" had no
verb in its first piece (no split) and "show <TICKET1> plus my devices" no ask in its second.
:func:`registry_split_vocab` adds, for any registry:

* the id slot kinds of its lexicon (``EMPLOYEE``, ``TICKET``): typed objects, never split
  between two of the same kind;
* the leading word of each tool name as an English verb (``reset_password`` -> ``reset``) and
  the other words as object nouns (``password``, ``devices``, ``ticket``);
* common Chinese action verbs of operations tools (:data:`ZH_ACTION_VERBS`), which the reference
  lexicon lacks;
* the values of each enum argument: two of one argument joined by "and" are one ask ("my open
  and waiting tickets").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tao.contracts import ToolSpec
from tao.contracts.domain import Lexicon
from thought_model.clauses import REFERENCE_VOCAB, SplitVocab

ZH_ACTION_VERBS = tuple("重置 申请 更换 换新 开通 解锁 创建 删除 添加 分配 登记 办理 报修".split())
"""Chinese action verbs of any operations registry (account, ticket, asset tools)."""

_GENERIC = frozenset("a an the of for by to and or with from get set".split())
"""Tool-name words that say nothing about the ask (``get`` is already a verb of the splitter)."""


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[_\W]+", name.lower()) if len(w) >= 3 and w.isalpha()]


def registry_split_vocab(tools: Sequence[ToolSpec], lexicon: Lexicon | None) -> SplitVocab:
    """The splitter vocabulary of a user registry (see the module doc)."""
    verbs: set[str] = set()
    nouns: set[str] = set()
    for t in tools:
        words = _words(t.name)
        if not words:
            continue
        verbs.add(words[0])
        nouns.update(words[1:])
    kinds = tuple(k.slot for k in lexicon.id_kinds) if lexicon is not None else ()
    enums = {
        frozenset(str(v).lower().replace("_", " ") for v in p["enum"] if str(v).isascii())
        for t in tools
        for p in t.args_schema.get("properties", {}).values()
        if isinstance(p, dict) and len(p.get("enum", ())) > 1
    }
    return SplitVocab(
        enum_values=tuple(sorted(enums, key=sorted)),
        id_kinds=tuple(dict.fromkeys((*REFERENCE_VOCAB.id_kinds, *kinds))),
        en_verbs=frozenset(verbs - _GENERIC),
        en_nouns=frozenset(nouns - _GENERIC - verbs),
        zh_verbs=ZH_ACTION_VERBS,
    )

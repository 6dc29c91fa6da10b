"""Two values of one enum argument joined by a conjunction: one ask, no clause boundary.

"show my open and waiting tickets" lists two values of ``status``; the clause splitter
(:mod:`thought_model.clauses`) would cut it at "and" ("show my open" + "waiting tickets") and the
first piece plans some other tool. :func:`enum_pair` tells the splitter not to.
"""

from __future__ import annotations

import re

_ARTICLE_NEXT = re.compile(r"\s+(?:a|an|the|up|my|it|this|that)\b", re.I)


def enum_pair(left: str, right: str, enum_values: tuple[frozenset[str], ...]) -> bool:
    """Whether ``left`` ends and ``right`` starts with two different values of one enum argument
    (``enum_values``: each argument's values, lower case, ``_`` as a space); a right value before
    an article is a verb ("… is closed and open a ticket")."""
    lw, rw = left.lower().rstrip(), right.lower().lstrip()
    for values in enum_values:
        for a in values:
            if not re.search(rf"(?<![a-z]){re.escape(a)}$", lw):
                continue
            for b in values:
                m = re.match(rf"{re.escape(b)}(?![a-z])", rw)
                if b != a and m is not None and _ARTICLE_NEXT.match(rw, m.end()) is None:
                    return True
    return False

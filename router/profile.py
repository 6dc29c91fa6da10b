"""Model profiles: what the router knows about each upstream model, loaded from TOML or YAML."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

DEFAULT_PROFILES_PATH = Path(__file__).resolve().parent / "profiles" / "default.toml"


class ProfileError(ValueError):
    """A profile file is missing, unreadable or has an invalid entry."""


@dataclass(frozen=True)
class ModelProfile:
    """One routable model. Prices are USD per 1k tokens; latency in seconds."""

    name: str
    endpoint: str
    max_input_tokens: int
    max_output_tokens: int
    price_in_per_1k: float = 0.0
    price_out_per_1k: float = 0.0
    p95_latency_s: float = 30.0
    output_tokens_per_s: float = 50.0  # decode speed used to predict seconds
    ttft_s: float = 0.3  # time to first token used to predict seconds
    strengths: tuple[str, ...] = ()
    tier: int = 1  # capability rank: higher = stronger
    concurrency: int = 16
    exclusive: bool = False  # only used when named or when task_type is one of its strengths
    api_key_env: str | None = None  # name of the env var holding the upstream key, if any
    upstream_model: str | None = None  # model id sent upstream (default: name)
    # models that may answer when this one is *named* and fails (in order); none: never substituted
    fallbacks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ProfileError("profile needs a non-empty string 'name'")
        if not str(self.endpoint).startswith(("http://", "https://")):
            raise ProfileError(
                f"profile {self.name!r}: endpoint must be an http(s) URL, got {self.endpoint!r}"
            )
        if self.name in self.fallbacks:
            raise ProfileError(f"profile {self.name!r}: lists itself in fallbacks")
        for f in ("max_input_tokens", "max_output_tokens", "concurrency"):
            if int(getattr(self, f)) <= 0:
                raise ProfileError(f"profile {self.name!r}: {f} must be > 0")
        for f in ("price_in_per_1k", "price_out_per_1k", "ttft_s"):
            if float(getattr(self, f)) < 0:
                raise ProfileError(f"profile {self.name!r}: {f} must be >= 0")
        for f in ("p95_latency_s", "output_tokens_per_s"):
            if float(getattr(self, f)) <= 0:
                raise ProfileError(f"profile {self.name!r}: {f} must be > 0")

    def cost_usd(self, input_tokens: float, output_tokens: float) -> float:
        return (input_tokens * self.price_in_per_1k + output_tokens * self.price_out_per_1k) / 1000.0

    def predict_seconds(self, output_tokens: float) -> float:
        return self.ttft_s + output_tokens / self.output_tokens_per_s

    def fits(self, input_tokens: int, output_tokens: int) -> bool:
        return input_tokens <= self.max_input_tokens and output_tokens <= self.max_output_tokens

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["strengths"] = list(self.strengths)
        d["fallbacks"] = list(self.fallbacks)
        return d


_FIELDS = {f.name for f in fields(ModelProfile)}


def _env_key(name: str) -> str:
    return "TAO_ENDPOINT_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def profile_from_dict(raw: dict[str, Any]) -> ModelProfile:
    """Build one profile from a mapping, with typed errors for unknown or missing keys."""
    if not isinstance(raw, dict):
        raise ProfileError(f"profile entry must be a table/mapping, got {type(raw).__name__}")
    unknown = set(raw) - _FIELDS
    if unknown:
        raise ProfileError(f"profile {raw.get('name')!r}: unknown keys {sorted(unknown)}")
    data = dict(raw)
    data["strengths"] = tuple(data.get("strengths", ()))
    fb = data.get("fallbacks", ())
    if isinstance(fb, str) or not all(isinstance(f, str) for f in fb):
        raise ProfileError(f"profile {raw.get('name')!r}: fallbacks must be a list of model names")
    data["fallbacks"] = tuple(fb)
    if "name" in data and os.environ.get(_env_key(str(data["name"]))):
        data["endpoint"] = os.environ[_env_key(str(data["name"]))]
    try:
        return ModelProfile(**data)
    except TypeError as exc:
        raise ProfileError(f"profile {raw.get('name')!r}: {exc}") from None


def load_profiles(path: str | Path | None = None) -> list[ModelProfile]:
    """Load profiles from a ``.toml`` or ``.yaml``/``.yml`` file (``[[model]]`` / ``model:`` list).

    ``None`` loads the shipped defaults (three API models and the local plan model).
    """
    p = Path(path) if path is not None else DEFAULT_PROFILES_PATH
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(f"cannot read profiles file {p}: {exc.strerror or exc}") from None
    try:
        if p.suffix.lower() in (".yaml", ".yml"):
            import yaml

            doc = yaml.safe_load(text) or {}
        else:
            doc = tomllib.loads(text)
    except Exception as exc:  # tomllib.TOMLDecodeError / yaml.YAMLError
        raise ProfileError(f"cannot parse profiles file {p}: {exc}") from None
    entries = doc.get("model", doc.get("models")) if isinstance(doc, dict) else doc
    if not isinstance(entries, list) or not entries:
        raise ProfileError(f"profiles file {p} has no 'model' list")
    profiles = [profile_from_dict(e) for e in entries]
    names = [m.name for m in profiles]
    if len(set(names)) != len(names):
        raise ProfileError(f"profiles file {p} has duplicate model names")
    check_fallbacks(profiles)
    return profiles


def check_fallbacks(profiles: list[ModelProfile]) -> None:
    """Every declared fallback names a profile of the same set (a typo must not mean "none")."""
    names = {m.name for m in profiles}
    for m in profiles:
        unknown = [f for f in m.fallbacks if f not in names]
        if unknown:
            raise ProfileError(f"profile {m.name!r}: unknown fallbacks {unknown}")

"""Run the official JSON-Schema-Test-Suite through ``rust_validator.SchemaValidator``.

Required tests run with format validation off (formats are annotations by default in 2019-09+),
optional tests (including ``optional/format``) with it on; date-time is checked strictly here
(the lenient mode is for observations). Remote ``$ref``s resolve to the suite's ``remotes/``
folder mapped to ``http://localhost:1234/`` — nothing is fetched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import rust_validator as rv

DRAFTS = {"draft2020-12": "2020-12", "draft7": "7"}


@dataclass
class SuiteResult:
    """Pass/fail counts of one draft, with the ids of the failing cases."""

    draft: str
    passed: int = 0
    total: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


def load_remotes(suite: Path) -> dict[str, object]:
    remotes = suite / "remotes"
    return {
        "http://localhost:1234/" + p.relative_to(remotes).as_posix(): json.loads(p.read_text())
        for p in sorted(remotes.rglob("*.json"))
    }


def run_draft(suite: Path, folder: str, remotes: dict[str, object]) -> SuiteResult:
    draft = DRAFTS[folder]
    result = SuiteResult(folder)
    root = suite / "tests" / folder
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root).as_posix()
        optional = rel.startswith("optional/")
        for group in json.loads(path.read_text()):
            cases = group["tests"]
            schema = group["schema"]
            # A schema naming its own meta-schema ($schema) is compiled as it says (custom
            # vocabularies); otherwise under the folder's draft.
            own = isinstance(schema, dict) and "$schema" in schema
            try:
                validator = rv.SchemaValidator(
                    schema,
                    draft=None if own else draft,
                    validate_formats=optional,
                    lenient_datetime=False,
                    resources=remotes,
                )
            except rv.CompileError as exc:
                for case in cases:
                    result.total += 1
                    result.failures.append(
                        f"{rel} | {group['description']} | {case['description']} (compile: {exc})"
                    )
                continue
            for case in cases:
                result.total += 1
                try:
                    # As a Python value, and as JSON text (the fast scan-and-check path).
                    text = json.dumps(case["data"]).encode()
                    ok = validator.is_valid(case["data"]) == case["valid"] == validator.is_valid(text)
                except rv.ValidationInputError:
                    ok = False
                if ok:
                    result.passed += 1
                else:
                    result.failures.append(f"{rel} | {group['description']} | {case['description']}")
    return result

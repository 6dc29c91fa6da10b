"""Contract files (JSON / YAML) as registry refs: the helpdesk file equals the Python domain, and
bad entries are typed errors naming the file and the JSON pointer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tao.contracts.domain import Domain
from tao.domains import DomainLoadError, load_domain
from tao.domains.contract import ContractError
from tao.domains.contract_dump import dump_domain, dumps, main
from tao.domains.contract_file import ContractFileError, domain_from_document, load_contract_file

HELPDESK_FILE = Path(__file__).resolve().parents[3] / "tao" / "domains" / "helpdesk" / "tools.yaml"
TOOL = {
    "name": "get_thing",
    "description": "Read one thing by id.",
    "args_schema": {
        "type": "object",
        "properties": {"thing_id": {"type": "string", "pattern": "^TH-[0-9]{4}$"}},
        "required": ["thing_id"],
    },
    "response_schema": {"type": "object", "properties": {"thing_id": {"type": "string"}}},
}


def _write(tmp_path: Path, doc: object, name: str = "tools.yaml") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(doc) if name.endswith(".json") else yaml.safe_dump(doc, allow_unicode=True))
    return p


def _error(path: Path) -> ContractFileError:
    with pytest.raises(ContractFileError) as info:
        load_contract_file(path)
    err = info.value
    assert isinstance(err, DomainLoadError) and isinstance(err, ContractError)  # both kinds catch it
    assert str(path) in str(err) and err.pointer in str(err)
    return err


def test_helpdesk_file_is_the_python_domain() -> None:
    py = load_domain("tao.domains.helpdesk:registry")
    fd = load_domain(str(HELPDESK_FILE))
    assert fd.tools == py.tools  # identical ToolSpecs, in order
    assert list(fd.examples) == list(py.examples)
    assert fd.lexicon == py.lexicon and dict(fd.value_words) == dict(py.value_words)
    assert fd.response_samples == py.response_samples
    assert {k: Path(v).resolve() for k, v in fd.eval_sets.items()} == {
        k: Path(v).resolve() for k, v in py.eval_sets.items()
    }
    assert fd.name == "helpdesk" and fd.ref == str(HELPDESK_FILE.resolve())
    assert fd.mock_handlers is None and fd.mock_data is None  # a file has no handlers
    # regenerating it gives the committed file (python -m tao.domains.contract_dump ... OUT)
    text = HELPDESK_FILE.read_text(encoding="utf-8")
    body = text.split("\n", 1)[1]
    assert dumps(dump_domain(py, HELPDESK_FILE.parent)) == body, (
        "tools.yaml is stale: python -m tao.domains.contract_dump tao.domains.helpdesk:registry "
        "tao/domains/helpdesk/tools.yaml"
    )


def test_json_form_and_the_env_ref(tmp_path, monkeypatch) -> None:
    out = tmp_path / "helpdesk.json"
    assert main(["tao.domains.helpdesk:registry", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["eval_sets"]["independent"].startswith("/")  # not under tmp_path: kept absolute
    monkeypatch.setenv("TAO_REGISTRY", str(out))
    d = load_domain()
    assert d.tools == load_domain("tao.domains.helpdesk:registry").tools and d.ref == str(out.resolve())


def test_minimal_file_short_form_and_strings_stay_strings(tmp_path) -> None:
    doc = {
        "tools": [
            dict(TOOL, examples={"en": [{"text": "show thing TH-1234", "args": {"thing_id": "TH-1234"}}]}),
            {
                "name": "list_things",
                "description": "List things since a date.",
                "arguments": {"properties": {"since": {"type": "string", "examples": ["2026-03-05"]}}},
                "outputs_for_references": ["thing_id"],
            },
        ]
    }
    p = tmp_path / "things.yaml"
    p.write_text(yaml.safe_dump(doc).replace("'2026-03-05'", "2026-03-05"))  # an unquoted YAML date
    d = load_contract_file(p)
    assert d.name == "things" and d.tool_names() == ["get_thing", "list_things"]
    assert d.tools[1].args_schema["properties"]["since"]["examples"] == ["2026-03-05"]
    assert d.examples[0].steps == (("get_thing", {"thing_id": "TH-1234"}),)
    assert [k.slot for k in d.lexicon.id_kinds] == ["THING"]  # id kinds derived from the pattern


@pytest.mark.parametrize(
    ("mutate", "pointer", "words"),
    [
        (lambda d: d["tools"][0].update(permission="admin"), "/tools/0/permission", "Input should be"),
        (lambda d: d["tools"][0].update(bogus=1), "/tools/0/bogus", "Extra inputs"),
        (lambda d: d["tools"][0].update(name="Bad Name"), "/tools/0/name", "pattern"),
        (lambda d: d["tools"][0].update(timeout_ms=-1), "/tools/0/timeout_ms", "greater than 0"),
        (lambda d: d["tools"][0].pop("args_schema"), "/tools/0", "needs 'name' and 'args_schema'"),
        (lambda d: d["tools"].append(dict(TOOL)), "/tools/1/name", "defined twice"),
        (lambda d: d.update(tools=[]), "/tools", "non-empty list"),
        (lambda d: d.update(extra_key=1), "/extra_key", "unknown key"),
        (lambda d: d.update(lexicon={"me_feld": "x"}), "/lexicon/me_feld", "unknown lexicon key"),
        (lambda d: d.update(value_words={"a": {"b": "c"}}), "/value_words/a/b", "a list of words"),
        (
            lambda d: d["tools"][0].update(examples={"en": [{"text": "x", "args": {"nope": "1"}}]}),
            "/tools/0/examples/en/0/args/nope",
            "has no argument 'nope'",
        ),
        (
            lambda d: d["tools"][0].update(examples={"fr": [{"text": "x"}]}),
            "/tools/0/examples/fr",
            "language 'fr'",
        ),
        (
            lambda d: d["tools"][0].update(examples={"en": [{"args": {}}]}),
            "/tools/0/examples/en/0/text",
            "request text",
        ),
        (
            lambda d: d.update(examples=[{"text": "x", "lang": "en", "steps": [{"tool": "nope"}]}]),
            "/examples/0/steps/0/tool",
            "unknown tool 'nope'",
        ),
        (
            lambda d: d["tools"][0].update(responses={"a": 1}),
            "/tools/0/responses",
            "a list of response bodies",
        ),
        (
            lambda d: d["tools"][0].update(responses=[], response_samples=[]),
            "/tools/0/response_samples",
            "not both",
        ),
    ],
)
def test_bad_entries_name_file_and_pointer(tmp_path, mutate, pointer, words) -> None:
    doc: dict = {"tools": [json.loads(json.dumps(TOOL))]}
    mutate(doc)
    for name in ("tools.yaml", "tools.json"):
        err = _error(_write(tmp_path, doc, name))
        assert err.pointer == pointer and words in str(err), str(err)


def test_pydantic_errors_all_mapped(tmp_path) -> None:
    bad = dict(TOOL, permission="admin", retry_budget=9, observation_rules=[{"name": "r"}])
    err = _error(_write(tmp_path, [bad], "t.json"))
    assert {p for p, _ in err.errors} == {
        "/tools/0/permission",
        "/tools/0/retry_budget",
        "/tools/0/observation_rules/0/logic",
    }
    assert "(+2 more)" in str(err)


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("t.json", '{"tools": [], "tools": []}', "duplicate key 'tools'"),
        ("t.yaml", "tools: []\ntools: []\n", "duplicate key 'tools' (line 2)"),
        ("t.yaml", "tools: [\n", "not valid YAML"),
        ("t.json", '{"tools": [}', "not valid JSON"),
        ("t.yml", "- 1\n", "/tools/0: expected an object, got int"),
    ],
)
def test_unreadable_files(tmp_path, name, text, words) -> None:
    p = tmp_path / name
    p.write_text(text)
    err = _error(p)
    assert words in str(err), str(err)


def test_missing_file_is_a_domain_load_error(tmp_path) -> None:
    with pytest.raises(DomainLoadError, match="cannot read the file"):
        load_domain(str(tmp_path / "absent.yaml"))


def test_document_without_file() -> None:
    d = domain_from_document([TOOL], "inline.json")
    assert isinstance(d, Domain) and d.name == "inline"

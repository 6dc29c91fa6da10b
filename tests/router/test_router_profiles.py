"""Model profiles: shipped defaults, TOML/YAML loading, typed errors."""

from __future__ import annotations

import pytest

from router.profile import ModelProfile, ProfileError, load_profiles


def test_defaults_ship_three_api_models_and_the_local_plan_model():
    profiles = {p.name: p for p in load_profiles()}
    assert len(profiles) == 4
    assert profiles["tao-plan-local"].exclusive and "plan" in profiles["tao-plan-local"].strengths
    api = sorted((p for p in profiles.values() if not p.exclusive), key=lambda p: p.tier)
    assert [p.tier for p in api] == [1, 2, 3]
    assert api[0].price_out_per_1k < api[1].price_out_per_1k < api[2].price_out_per_1k
    assert api[0].p95_latency_s < api[2].p95_latency_s


def test_yaml_and_toml_agree(tmp_path):
    yaml_file = tmp_path / "m.yaml"
    yaml_file.write_text(
        "model:\n  - name: a\n    endpoint: http://127.0.0.1:1/v1\n"
        "    max_input_tokens: 100\n    max_output_tokens: 10\n    strengths: [fast]\n"
    )
    toml_file = tmp_path / "m.toml"
    toml_file.write_text(
        '[[model]]\nname = "a"\nendpoint = "http://127.0.0.1:1/v1"\n'
        'max_input_tokens = 100\nmax_output_tokens = 10\nstrengths = ["fast"]\n'
    )
    assert load_profiles(yaml_file) == load_profiles(toml_file)
    assert load_profiles(yaml_file)[0].strengths == ("fast",)


def test_endpoint_env_override(tmp_path, monkeypatch):
    monkeypatch.setenv("TAO_ENDPOINT_GPT_4O_MINI", "http://127.0.0.1:9999/v1")
    assert {p.name: p.endpoint for p in load_profiles()}["gpt-4o-mini"] == "http://127.0.0.1:9999/v1"


@pytest.mark.parametrize(
    "text, needle",
    [
        ("not toml [[", "cannot parse"),
        ("[[other]]\nx = 1\n", "no 'model' list"),
        (
            '[[model]]\nname = "a"\nendpoint = "ftp://x"\nmax_input_tokens = 1\nmax_output_tokens = 1\n',
            "http",
        ),
        (
            '[[model]]\nname = "a"\nendpoint = "http://x"\nmax_input_tokens = 0\nmax_output_tokens = 1\n',
            "> 0",
        ),
        (
            '[[model]]\nname = "a"\nendpoint = "http://x"\nmax_input_tokens = 1\nmax_output_tokens = 1\ncolour = 1\n',
            "unknown keys",
        ),
        ('[[model]]\nname = "a"\nendpoint = "http://x"\n', "missing"),
    ],
)
def test_bad_profile_files_raise_typed_errors(tmp_path, text, needle):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ProfileError, match=needle):
        load_profiles(f)


def test_missing_file_is_a_profile_error(tmp_path):
    with pytest.raises(ProfileError, match="cannot read"):
        load_profiles(tmp_path / "nope.toml")


def test_cost_and_seconds():
    p = ModelProfile(
        "m",
        "http://x",
        100,
        100,
        price_in_per_1k=1.0,
        price_out_per_1k=2.0,
        output_tokens_per_s=10.0,
        ttft_s=0.5,
    )
    assert p.cost_usd(1000, 500) == pytest.approx(2.0)
    assert p.predict_seconds(20) == pytest.approx(2.5)

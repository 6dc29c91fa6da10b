"""``tao train --teacher URL``: paraphrases from an OpenAI-compatible endpoint, tested against a
fake upstream (a real uvicorn on loopback answering chat completions through the official client),
with one answer that breaks a marker, one duplicate and one 500."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tao.domains import load_domain
from training.config import TrainConfig, config_from_args
from training.derive import with_phrasing
from training.generate import template_ids
from training.teacher import TeacherConfig, _jobs, check_paraphrase, teach
from training.train import Dist, _ensure_data

MARK_EN, MARK_ZH = "zqteach", "麻烦老师"
_REQ = re.compile(r"^Request: (.*)$", re.M)


@dataclass
class Fake:
    """Answers request #2 with a 500, request #4 with a broken marker + a duplicate line."""

    seen: list[str] = field(default_factory=list)

    def answer(self, template: str) -> tuple[int, str]:
        self.seen.append(template)
        n = len(self.seen)
        zh = bool(re.search(r"[\u4e00-\u9fff]", template))
        good = (
            [f"{MARK_ZH}{template}", f"{template}，{MARK_ZH}"]
            if zh
            else [f"{MARK_EN} {template}", f"{template} {MARK_EN}"]
        )
        if n == 2:
            return 500, ""
        if n == 4:
            broken = re.sub(r"\{[a-z]+[0-9]?\}", "X", template, count=1)  # a marker lost
            broken = broken if broken != template else template + " {extra}"  # or one added
            return 200, "\n".join([f"1. {good[0]}", f"2. {broken}", f"3. {good[0]}"])
        return 200, "\n".join(f"- {g}" for g in good)


@pytest.fixture
def upstream():
    fake = Fake()

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        m = _REQ.search(body["messages"][-1]["content"])
        assert m and body["temperature"] == 0 and body["model"] == "teacher-x"
        status, text = fake.answer(m.group(1))
        if status != 200:
            return JSONResponse(
                {"error": {"message": "upstream broke", "type": "server_error"}}, status_code=status
            )
        return JSONResponse(
            {
                "id": f"c{len(fake.seen)}",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    app = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1", fake
    server.should_exit = True
    thread.join(20)


@pytest.fixture(scope="module")
def helpdesk():
    return with_phrasing(load_domain("tao.domains.helpdesk:registry"), 0)


def test_check_paraphrase() -> None:
    t = "reset my {system} password for {employee}"
    assert check_paraphrase(t, "please reset the {system} password of {employee}") is None
    assert check_paraphrase(t, "please reset my password for {employee}") == "markers"  # lost
    assert check_paraphrase(t, "reset {system} {system} for {employee}") == "markers"  # twice
    assert check_paraphrase(t, "reset {System} password for {employee}") == "markers"  # changed
    assert check_paraphrase(t, "reset {system} for {employee} and {name}") == "markers"  # added
    assert check_paraphrase(t, t) == "other" and check_paraphrase(t, "") == "other"
    assert check_paraphrase(t, "reset [my|the] {system} password for {employee}") == "other"


def test_teacher_counts_and_keeps_held_out_templates(upstream, helpdesk) -> None:
    url, fake = upstream
    assert helpdesk.phrasing is not None
    cfg = TeacherConfig(url=url, model="teacher-x", per_template=3, max_templates=8, seed=5, progress=False)
    taught, report = teach(helpdesk, cfg)
    assert report.requests == len(fake.seen) == 8
    assert report.failed_requests == 1 and "InternalServerError" in report.errors[0]
    # 6 answered normally x 2 + request #4: one good, one broken marker, one duplicate
    assert (report.accepted, report.dropped_markers, report.dropped_other) == (13, 1, 1)
    jobs = _jobs(helpdesk.phrasing, cfg)  # held-out templates are never sent
    assert [getattr(helpdesk.phrasing.intents[i], lang)[t] for i, lang, t in jobs] == fake.seen
    assert all(t in template_ids(helpdesk.phrasing.intents[i], lang)[0] for i, lang, t in jobs)
    assert taught.phrasing is not None
    added = []
    for old, new in zip(helpdesk.phrasing.intents, taught.phrasing.intents, strict=True):
        for lang in ("zh", "en"):
            o, n = getattr(old, lang), getattr(new, lang)
            assert n[-1] == o[-1]  # the held-out last template stays last
            added += [t for t in n if t not in o]
    assert len(added) == report.accepted and all(MARK_EN in t or MARK_ZH in t for t in added)
    # deterministic: the same seed sends the same templates and gives the same phrasing
    first = list(fake.seen)
    fake.seen.clear()
    again, report2 = teach(helpdesk, cfg)
    assert fake.seen == first and report2 == report
    assert again.phrasing is not None and again.phrasing.intents == taught.phrasing.intents


def test_train_data_contains_the_accepted_paraphrases(upstream, helpdesk, tmp_path: Path) -> None:
    url, _fake = upstream
    argv = ["--registry", "tao.domains.helpdesk:registry", "--out-dir", str(tmp_path), "--teacher", url]
    argv += [
        "--teacher-model",
        "teacher-x",
        "--teacher-templates",
        "40",
        "--n-train",
        "600",
        "--n-eval",
        "40",
    ]
    cfg = config_from_args([*argv, "--no-progress", "--seed", "3"])
    assert isinstance(cfg, TrainConfig) and cfg.teacher == url and cfg.teacher_templates == 40
    data = _ensure_data(cfg, tmp_path, Dist(), helpdesk)
    report = json.loads((data / "teacher.json").read_text())
    assert report["requests"] == 40 and report["failed_requests"] == 1 and report["dropped_markers"] == 1
    assert report["accepted"] == 2 * 38 + 1
    rows = [json.loads(line) for line in (data / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    taught = [
        r
        for r in rows
        if MARK_EN in json.dumps(r, ensure_ascii=False) or MARK_ZH in json.dumps(r, ensure_ascii=False)
    ]
    assert taught, "no training row uses an accepted paraphrase"
    held = (data / "heldout_templates.jsonl").read_text(encoding="utf-8")
    assert MARK_EN not in held and MARK_ZH not in held  # paraphrases of training templates only

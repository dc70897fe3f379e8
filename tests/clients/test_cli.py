"""``handover``, the client package's command line, against the live test server: imports of
each format (a rerun writes nothing twice; an interrupted import resumes), export, search,
facts. The readers and the progress line are also checked on their own."""

from __future__ import annotations

import datetime
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from handover_client import Handover
from handover_client import _sources as sources
from handover_client.cli import Progress, main

from memory.models import Session, Turn
from schemas.models import Agent
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create

FIXTURES = Path(__file__).parent / "fixtures"
CHATGPT = FIXTURES / "chatgpt-conversations.json"
LOCOMO = FIXTURES / "locomo-sample.json"
UTC = datetime.UTC


def _at(day: int, month: int, year: int, hour: int, minute: int, second: int = 0) -> Any:
    return datetime.datetime(year, month, day, hour, minute, second, tzinfo=UTC)


# --- The readers ------------------------------------------------------------------------------


def test_chatgpt_export_follows_the_branch_the_user_saw_and_keeps_only_what_was_said() -> None:
    flat, cats = sources.read(CHATGPT, None, "priya")
    assert (flat.user, flat.session) == ("priya", "chatgpt-6f1c2d8e-0b7a-4a55-9d1e-2f3a4b5c6d7e")
    assert flat.metadata == {"source": "chatgpt", "title": "Flat hunting in Pune"}
    # The edited answer (80, not 50 lakhs), no hidden system message, no tool call or output,
    # the text of a message with an image; an undated message takes the time before it.
    assert [(t.seq, t.role, t.text, t.occurred_at) for t in flat.turns] == [
        (1, "user", "Hi, I'm Priya. We're looking for a flat in Pune.", _at(3, 3, 2024, 7, 30, 10)),
        (2, "assistant", "Happy to help, Priya. What is your budget?", _at(3, 3, 2024, 7, 30, 20)),
        (3, "user", "Our budget is 80 lakhs.", _at(3, 3, 2024, 7, 30, 50)),
        (4, "assistant", "With 80 lakhs, Kothrud and Baner have good 2BHK flats.",
         _at(3, 3, 2024, 7, 31, 10)),
        (5, "user", "Here is the floor plan I like.", _at(3, 3, 2024, 7, 31, 20)),
        (6, "assistant", "That layout has a good kitchen.", _at(3, 3, 2024, 7, 31, 20)),
    ]  # fmt: skip
    assert [(t.seq, t.text) for t in cats.turns] == [
        (1, "We have two cats, Max and Bella."),
        (2, "Lovely! Noted: Max and Bella."),
    ]  # fmt: skip  (an empty message is no turn)


def test_format_is_guessed_and_the_export_zip_read_as_it_is(tmp_path: Path) -> None:
    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.write(CHATGPT, "conversations.json")
        out.writestr("user.json", "{}")
    assert [sources.guess(p) for p in (CHATGPT, LOCOMO, archive)] == [
        "chatgpt",
        "locomo",
        "chatgpt",
    ]
    assert sources.read(archive, None, "priya") == sources.read(CHATGPT, "chatgpt", "priya")
    (tmp_path / "h.jsonl").write_text("")
    assert sources.guess(tmp_path / "h.jsonl") == "jsonl"
    (tmp_path / "other.json").write_text('{"not": "a history"}')
    with pytest.raises(sources.SourceError, match="say which format it is"):
        sources.read(tmp_path / "other.json", None, "priya")


def test_locomo_sessions_speakers_and_dates() -> None:
    first, second = sources.read(LOCOMO, None, None)
    assert (first.user, first.session, second.session) == (
        "conv-demo",
        "conv-demo-s1",
        "conv-demo-s2",
    )
    assert first.metadata == {
        "source": "locomo", "participants": {"user": "Caroline", "assistant": "Melanie"},
    }  # fmt: skip
    assert [(t.role, t.text, t.occurred_at) for t in first.turns] == [
        ("user", "Hey Mel! I went to a support group yesterday.", _at(8, 5, 2023, 13, 56)),
        ("assistant", "That's great, Caroline! How was it?", _at(8, 5, 2023, 13, 56, 30)),
        ("user", "Really moving. [shares an image: a photo of a rainbow flag]",
         _at(8, 5, 2023, 13, 57)),
    ]  # fmt: skip
    assert [(t.seq, t.role) for t in second.turns] == [(1, "assistant"), (2, "user")]
    assert second.turns[0].occurred_at == _at(27, 6, 2023, 10, 37)
    assert {c.user for c in sources.read(LOCOMO, "locomo", "caroline")} == {"caroline"}


def test_jsonl_groups_turns_by_user_and_session_in_file_order() -> None:
    lines = [
        '{"session": "a", "role": "user", "text": "one"}',
        "",
        '{"session": "b", "role": "user", "content": "other", "user": "ravi"}',
        '{"session": "a", "role": "assistant", "text": "two", "occurred_at": "2024-01-02T03:04:05Z"}',
        '{"role": "user", "text": "no session"}',
    ]
    found = sources.jsonl(lines, "priya", default="history")
    assert [(c.user, c.session, [(t.seq, t.text) for t in c.turns]) for c in found] == [
        ("priya", "a", [(1, "one"), (2, "two")]),
        ("ravi", "b", [(1, "other")]),
        ("priya", "history", [(1, "no session")]),
    ]
    assert found[0].turns[1].occurred_at == "2024-01-02T03:04:05Z"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2: not JSON"),
        ('{"role": "user"}', "line 2: a turn is an object with role and text"),
        ('{"role": "narrator", "text": "x"}', "line 2: role is one of user, assistant"),
        ('{"role": "user", "text": "x", "session": "s"}', "say whose history line 2 is (--user)"),
    ],
)
def test_jsonl_errors_name_the_line(line: str, message: str) -> None:
    with pytest.raises(sources.SourceError, match=message.replace("(", r"\(").replace(")", r"\)")):
        sources.jsonl(['{"role": "user", "text": "fine", "user": "u"}', line], None, default="h")


def test_progress_line_has_rate_and_time_left() -> None:
    class Stream:
        written = ""

        def isatty(self) -> bool:
            return False

        def write(self, text: str) -> None:
            self.written += text

        def flush(self) -> None:
            pass

    stream = Stream()
    progress = Progress(1_000, stream)  # type: ignore[arg-type]
    progress.started -= 10  # ten seconds ago
    progress.add(skipped=200)  # already stored: instant, not in the rate
    progress.add(new=90, existing=10)
    assert progress.line() == (
        "300/1,000 turns (30 %), 10 turns/s, ETA 1 min 10 s: 90 new, 210 already stored"
    )
    progress.show(final=True)
    assert stream.written == progress.line() + "\n"


# --- Against the live server ------------------------------------------------------------------

pytest_live = pytest.mark.django_db(transaction=True)


@pytest.fixture
def keys(tenant_a: Tenant, property_agent: Agent) -> dict[str, str]:
    agent = api_key_create(tenant=tenant_a, name="cli", role=KeyRole.AGENT, actor="t")[1]
    operator = api_key_create(tenant=tenant_a, name="ops", role=KeyRole.OPERATOR, actor="t")[1]
    return {"agent": agent, "operator": operator}


@pytest.fixture
def cli(
    live_server: Any, keys: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> Any:
    monkeypatch.setenv("HANDOVER_URL", live_server.url)

    def run(*argv: str, key: str = "agent") -> tuple[int, str, str]:
        monkeypatch.setenv("HANDOVER_API_KEY", keys[key])
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _stored() -> list[tuple[str, str | None, int, str, str]]:
    rows = Turn.objects.values_list(
        "session__end_user__external_id", "session__external_id", "seq", "role", "text"
    )
    return sorted(rows)


@pytest_live
def test_chatgpt_import_then_a_rerun_writes_nothing_twice(cli: Any) -> None:
    code, out, err = cli("import", str(CHATGPT), "--agent", "property", "--user", "priya")
    assert code == 0, err
    assert out.startswith("Imported 8 turns in 2 sessions: 8 new, 0 already stored (")
    assert "8/8 turns (100 %)" in err
    stored = _stored()
    assert len(stored) == 8
    assert ("priya", "chatgpt-6f1c2d8e-0b7a-4a55-9d1e-2f3a4b5c6d7e", 3, "user",
            "Our budget is 80 lakhs.") in stored  # fmt: skip
    turn = Turn.objects.get(seq=1, session__external_id__startswith="chatgpt-6f1c")
    assert turn.occurred_at == _at(3, 3, 2024, 7, 30, 10)
    ids = sorted(Turn.objects.values_list("id", "recorded_at"))

    code, out, err = cli("import", str(CHATGPT), "--agent", "property", "--user", "priya")
    assert code == 0, err
    assert out.startswith("Imported 8 turns in 2 sessions: 0 new, 8 already stored (")
    assert sorted(Turn.objects.values_list("id", "recorded_at")) == ids
    assert Session.objects.count() == 2


@pytest_live
def test_locomo_import_one_user_per_sample_with_real_dates(cli: Any) -> None:
    code, out, err = cli("import", str(LOCOMO), "--agent", "property")
    assert code == 0, err
    assert out.startswith("Imported 5 turns in 2 sessions: 5 new, 0 already stored (")
    assert [row[:3] for row in _stored()] == [
        ("conv-demo", "conv-demo-s1", 1), ("conv-demo", "conv-demo-s1", 2),
        ("conv-demo", "conv-demo-s1", 3), ("conv-demo", "conv-demo-s2", 1),
        ("conv-demo", "conv-demo-s2", 2),
    ]  # fmt: skip
    session = Session.objects.get(external_id="conv-demo-s2")
    assert session.metadata["participants"] == {"user": "Caroline", "assistant": "Melanie"}
    first = Turn.objects.get(session=session, seq=1)
    assert (first.role, first.occurred_at) == ("assistant", _at(27, 6, 2023, 10, 37))


@pytest_live
def test_a_file_that_grew_imports_the_rest_and_verify_finds_a_changed_one(
    cli: Any, tmp_path: Path
) -> None:
    history = tmp_path / "history.jsonl"
    first = '{"role": "user", "text": "My budget is 50 lakhs."}\n'
    history.write_text(first)
    assert cli("import", str(history), "--agent", "property", "--user", "priya")[0] == 0
    history.write_text(first + '{"role": "assistant", "text": "Noted."}\n')
    code, out, _ = cli("import", str(history), "--agent", "property", "--user", "priya")
    assert code == 0 and out.startswith("Imported 2 turns in 1 sessions: 1 new, 1 already stored")
    # The stored part edited: a plain rerun skips what the server holds; --verify sends it all
    # again, and the API refuses a turn whose content differs. Nothing is overwritten.
    history.write_text(first.replace("50", "90") + '{"role": "assistant", "text": "Noted."}\n')
    args = ["import", str(history), "--agent", "property", "--user", "priya"]
    assert cli(*args)[0] == 0
    code, _, err = cli(*args, "--verify")
    assert code == 1
    assert "turn_conflict: " in err and "The file differs from what an earlier import stored" in err
    assert [row[2:] for row in _stored()] == [
        (1, "user", "My budget is 50 lakhs."), (2, "assistant", "Noted."),
    ]  # fmt: skip
    history.write_text(first + '{"role": "assistant", "text": "Noted."}\n')
    code, out, _ = cli(*args, "--verify")
    assert code == 0 and out.startswith("Imported 2 turns in 1 sessions: 0 new, 2 already stored")


def _big_history(path: Path, sessions: int, turns: int) -> None:
    with path.open("w") as out:
        for s in range(sessions):
            for t in range(turns):
                role = "user" if t % 2 == 0 else "assistant"
                row = {"session": f"s{s:02d}", "role": role, "text": f"session {s} turn {t}"}
                out.write(json.dumps(row) + "\n")


@pytest_live
@pytest.mark.slow
def test_an_interrupted_import_resumes_where_it_stopped(
    live_server: Any, keys: dict[str, str], cli: Any, tmp_path: Path, property_agent: Agent
) -> None:
    # No extraction while importing: the tests run it eagerly, inside the request, and a batch
    # answered after the client's 10 s read timeout would be sent again (and come back as
    # already stored, which is right but not what this test counts).
    Agent.objects.filter(pk=property_agent.pk).update(extraction_token_threshold=10_000_000)
    history = tmp_path / "big.jsonl"
    _big_history(history, sessions=40, turns=50)  # 2,000 turns
    env = {**os.environ, "HANDOVER_URL": live_server.url, "HANDOVER_API_KEY": keys["agent"]}
    command = [sys.executable, "-m", "handover_client.cli", "import", str(history),
               "--agent", "property", "--user", "priya", "--batch-size", "10"]  # fmt: skip
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while Turn.objects.count() < 100:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)  # Ctrl-C, mid-request or between two
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert b"interrupted. Run the same command again to resume" in err
    time.sleep(0.5)  # a batch the server was still writing when the client left
    before = Turn.objects.count()
    assert 100 <= before < 2_000

    code, out, err = cli("import", str(history), "--agent", "property", "--user", "priya")
    assert code == 0, err
    assert out.startswith(
        f"Imported 2,000 turns in 40 sessions: {2_000 - before:,} new, {before:,} already stored ("
    )
    stored = _stored()
    assert len(stored) == 2_000
    assert len({row[4] for row in stored}) == 2_000  # every text once
    assert all(row[2] == int(row[4].rsplit(" ", 1)[1]) + 1 for row in stored)  # seq = position


@pytest_live
def test_facts_search_and_export(
    cli: Any, live_server: Any, keys: dict[str, str], tmp_path: Path
) -> None:
    with Handover(api_key=keys["agent"], base_url=live_server.url) as hv:
        hv.write_fact("priya", "budget", {"amount": 8_000_000, "currency": "INR"}, agent="property",
                      valid_from="2026-03-09T10:00:00Z")  # fmt: skip
        hv.write_fact("priya", "city", "Pune", agent="property", valid_from="2026-03-01T10:00:00Z")
    assert cli("import", str(CHATGPT), "--agent", "property", "--user", "priya")[0] == 0

    code, out, _ = cli("facts", "priya", "--agent", "property")
    assert code == 0
    assert out.splitlines() == [
        "budget  ₹80 lakh  (explicit, since 2026-03-09)",
        "city    Pune  (explicit, since 2026-03-01)",
    ]
    code, out, _ = cli("facts", "priya", "--agent", "property", "--json")
    assert sorted(f["key"] for f in json.loads(out)) == ["budget", "city"]
    code, _, err = cli("facts", "ravi", "--agent", "property")
    assert code == 1 and err.startswith("handover facts: user_not_found: ")

    code, out, _ = cli("search", "priya", "what is the budget", "--agent", "property", "-k", "3")
    assert code == 0
    first = out.splitlines()[0]
    assert (
        first.startswith(" 1. ") and "high" in first and "entity" in first and "₹80 lakh" in first
    )
    code, out, _ = cli("search", "priya", "budget", "--agent", "property", "--json")
    assert json.loads(out)["results"][0]["source"] == "entity"

    target = tmp_path / "priya.json"
    code, _, err = cli("export", "priya", "-o", str(target), key="operator")
    assert code == 0 and err.startswith("Exported priya: ")
    exported = json.loads(target.read_text())
    assert exported["format_version"] == 1 and len(exported["turns"]) == 8
    assert not (tmp_path / "priya.json.part").exists()
    # The agent key may not export: the API's code, exit 1, no file.
    code, _, err = cli("export", "priya", "-o", str(tmp_path / "no.json"))
    assert (code, err.split(":")[:2]) == (1, ["handover export", " permission_denied"])

"""Build bench/anaphora/probes.json from the hand-written domains (README.md beside this file).

    .venv/bin/python -m bench.anaphora.make

Deterministic (seeded). Every probe is one conversation of its own user: earlier sessions when
the probe points back to one, the current session's turns, then the probe, the user's turn that
refers back. The gold is what it refers to: turns (by session and index) or a fact key.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from bench.anaphora.domains import TUNE, Domain
from bench.anaphora.held_out import HELD_OUT

OUT = Path(__file__).resolve().parent / "probes.json"

# Phrasings per kind of reference; those after the bar are used only in held-out domains (so
# the held-out split also tests wording the resolver was not written against).
PHRASINGS: dict[str, tuple[list[str], list[str]]] = {
    "other": (
        [
            "Do that again but for the other {kind}.",
            "Now the same for the other {kind}, please.",
            "And for the other {kind}?",
            "Can you repeat that for the other one?",
        ],
        ["Same thing with the other {kind}.", "What about the other one?"],
    ),
    "previous": (
        [
            "No, the previous one.",
            "Actually, let's go with the earlier one.",
            "Go back to the first option.",
            "I prefer the one before that.",
        ],
        [
            "Hmm, the one you mentioned before that, please.",
            "On second thought, the previous option.",
        ],
    ),
    "again": (
        ["Can you do that again?", "Please do it again.", "Repeat that last request."],
        ["Run the same thing once more.", "One more time, please."],
    ),
    "that": (
        ["Remind me what I told you about that {kind}.", "What were the details of that {kind}?"],
        ["Tell me again about that {kind} of mine."],
    ),
    "pronoun_she": (
        [
            "What did I tell you about her?",
            "When did I say she would be around?",
            "Remind me what she wanted.",
        ],
        ["Anything I should remember about her?", "What was going on with her again?"],
    ),
    "pronoun_he": (
        ["Remind me what he needs.", "What did I say about him?", "When is he available?"],
        ["Anything I should remember about him?", "What was his situation again?"],
    ),
    "same": (
        ["Do the same as last time.", "Same as before, please.", "Like last time, please."],
        ["Repeat what we did in our last chat."],
    ),
}
# How many probes of each kind per domain: 18 per domain, 90 tune and 72 held out.
PER_DOMAIN = {"other": 3, "previous": 3, "again": 2, "that": 2, "pronoun_she": 2,
              "pronoun_he": 2, "same": 2, "usual": 2}  # fmt: skip

Turn = dict[str, str]


def _acks(domain: Domain, index: int) -> Turn:
    label = domain["labels"][index]
    return {"role": "assistant", "text": f"Got it, noted the {label} {domain['kind']}."}


def _filler(domain: Domain, rng: random.Random, pairs: int) -> list[Turn]:
    talk = domain["small_talk"]
    starts = list(range(0, len(talk), 2))
    rng.shuffle(starts)
    out: list[Turn] = []
    for start in (starts * 3)[:pairs]:
        out += [{"role": r, "text": t} for r, t in talk[start : start + 2]]
    return out


def _phrase(kind: str, held_out: bool, rng: random.Random) -> str:
    tune, extra = PHRASINGS[kind]
    return rng.choice(tune + extra if held_out else tune)


def _probe(domain: Domain, kind: str, rng: random.Random, held_out: bool) -> dict[str, Any]:
    """One conversation ending in a probe of ``kind``; gold turns are indexes into the
    current session's turns (``current``) or into an earlier session (``prior``)."""
    turns: list[Turn] = []
    prior: list[Turn] = []
    gold: list[dict[str, Any]] = []
    facts: list[dict[str, str]] = []

    def add(role: str, text: str) -> int:
        turns.append({"role": role, "text": text})
        return len(turns) - 1

    def user(text: str) -> int:
        return add("user", text)

    def say(text: str) -> int:
        return add("assistant", text)

    pick = rng.randrange(2)
    label = domain["labels"][pick]
    text = None
    if kind == "other":
        turns += _filler(domain, rng, rng.randint(0, 2))
        intro = [user(domain["items"][0]), say(_acks(domain, 0)["text"])][0:1]
        intro += [user(domain["items"][1]), say(_acks(domain, 1)["text"])][0:1]
        turns += _filler(domain, rng, rng.randint(0, 4))
        action = user(domain["action"].format(label=label))
        say(domain["action_ack"].format(label=label))
        turns += _filler(domain, rng, rng.randint(0, 5))
        gold = [
            {"session": "current", "index": action},
            {"session": "current", "index": intro[1 - pick]},
        ]
    elif kind == "previous":
        turns += _filler(domain, rng, rng.randint(1, 5))
        user("What options do I have?")
        offered = [say(domain["options"][0])]
        for option in domain["options"][1 : rng.choice([2, 3])]:
            user(rng.choice(["Hmm, anything else?", "What else is there?", "Any other option?"]))
            offered.append(say(option))
        text = _phrase(kind, held_out, rng)
        target = offered[0] if "first" in text else offered[-2]
        gold = [{"session": "current", "index": target}]
    elif kind == "again":
        turns += _filler(domain, rng, rng.randint(0, 3))
        action = user(domain["action"].format(label=label))
        say(domain["action_ack"].format(label=label))
        turns += _filler(domain, rng, rng.randint(1, 7))
        gold = [{"session": "current", "index": action}]
    elif kind == "that":
        turns += _filler(domain, rng, rng.randint(0, 3))
        said = user(domain["items"][pick])
        say(_acks(domain, pick)["text"])
        turns += _filler(domain, rng, rng.randint(1, 7))
        gold = [{"session": "current", "index": said}]
    elif kind.startswith("pronoun"):
        people = list(domain["people"])
        rng.shuffle(people)
        turns += _filler(domain, rng, rng.randint(0, 2))
        where = {}
        for pronoun, line in people:
            where[pronoun] = user(line)
            say(rng.choice(["Noted.", "Thanks for telling me.", "Okay, I will keep that in mind."]))
            turns += _filler(domain, rng, rng.randint(0, 3))
        gold = [{"session": "current", "index": where[kind.split("_")[1]]}]
    elif kind == "same":
        prior += _filler(domain, rng, rng.randint(0, 2))
        prior.append({"role": "user", "text": domain["items"][pick]})
        prior.append(_acks(domain, pick))
        prior.append({"role": "user", "text": domain["action"].format(label=label)})
        gold = [{"session": "prior", "index": len(prior) - 1}]
        prior.append({"role": "assistant", "text": domain["action_ack"].format(label=label)})
        prior += _filler(domain, rng, rng.randint(0, 2))
        turns += _filler(domain, rng, rng.randint(0, 3))
    elif kind == "usual":
        key, value, _question, text = domain["fact"]
        facts = [{"key": key, "value": value}]
        turns += _filler(domain, rng, rng.randint(1, 5))
        gold = []
    text = text or _phrase(kind, held_out, rng).format(kind=domain["kind"])
    return {
        "kind": kind,
        "prior": prior,
        "turns": turns,
        "probe": text,
        "gold_turns": gold,
        "gold_facts": [f["key"] for f in facts],
        "facts": facts,
    }


def build(seed: int = 17) -> dict[str, Any]:
    rng = random.Random(seed)
    conversations = []
    for split, domains in (("tune", TUNE), ("held_out", HELD_OUT)):
        for domain in domains:
            for kind, count in PER_DOMAIN.items():
                for n in range(count):
                    probe = _probe(domain, kind, rng, split == "held_out")
                    conversations.append({
                        "id": f"{domain['name']}-{kind}-{n + 1}", "split": split, "domain": domain["name"],
                        "participants": {"user": domain["user"], "assistant": domain["assistant"]},
                        **probe,
                    })  # fmt: skip
    fields = sorted({d["fact"][0] for d in TUNE + HELD_OUT})
    return {"seed": seed, "fact_fields": fields, "conversations": conversations}


def main() -> None:
    OUT.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

"""handover: import conversation history, export a user, search, show a user's facts.

    handover import conversations.json --agent demo --user priya     # a ChatGPT export
    handover import history.jsonl --agent demo --user priya          # JSON lines
    handover import locomo.json --agent demo --format locomo         # one user per sample
    handover export priya -o priya.json
    handover search priya "what is her budget" --agent demo
    handover facts priya --agent demo

Reads HANDOVER_API_KEY and HANDOVER_URL like the client. An import can be stopped and
run again at any point: sessions and turn seqs come from the source, the server says how far
each session got (next_seq), and a turn already stored is never stored twice.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from handover_client import _sources
from handover_client._sync import Handover
from handover_client.errors import APIError, HandoverError

BATCH = 200  # turns per request (the API takes up to 500): a few hundred KB at most


class Progress:
    """One line: turns done of the total, turns per second, time left. No dependency."""

    def __init__(self, total: int, stream: TextIO, *, every: float | None = None) -> None:
        self.total, self.stream = total, stream
        self.live = stream.isatty()
        self.every = every if every is not None else (0.2 if self.live else 5.0)
        self.new = self.existing = self.skipped = 0
        self.started = self.shown = time.monotonic()

    @property
    def done(self) -> int:
        return self.new + self.existing + self.skipped

    def add(self, *, new: int = 0, existing: int = 0, skipped: int = 0) -> None:
        self.new, self.existing = self.new + new, self.existing + existing
        self.skipped += skipped
        if time.monotonic() - self.shown >= self.every:
            self.show()

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-6)
        sent = self.new + self.existing  # skipped turns cost nothing: not in the rate
        rate = sent / elapsed
        left = self.total - self.done
        eta = _duration(left / rate) if rate > 0 else "unknown"
        percent = 100 * self.done // self.total if self.total else 100
        return (
            f"{self.done:,}/{self.total:,} turns ({percent} %), {rate:,.0f} turns/s, ETA {eta}: "
            f"{self.new:,} new, {self.existing + self.skipped:,} already stored"
        )

    def show(self, final: bool = False) -> None:
        self.shown = time.monotonic()
        end = "\n" if final or not self.live else ""
        self.stream.write(("\r\x1b[2K" if self.live else "") + self.line() + end)
        self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    return (
        f"{minutes} min {seconds:02d} s"
        if minutes < 60
        else f"{minutes // 60} h {minutes % 60:02d} min"
    )


def import_history(
    hv: Handover,
    conversations: list[_sources.Conversation],
    *,
    agent: str,
    batch: int = BATCH,
    verify: bool = False,
    progress: Progress,
) -> None:
    """Every conversation into its session, resuming where the server says it stopped
    (``verify``: sending every turn again, so the server compares what it holds)."""
    for conversation in conversations:
        if not conversation.turns:
            continue
        opened = hv.open_session(
            agent, conversation.user, session=conversation.session, metadata=conversation.metadata
        )
        # next_seq: the seqs below it are stored (batches are all or nothing, in order). A turn
        # at or after it that is stored after all comes back as existing, never twice.
        start = 1 if verify else opened.next_seq or 1
        todo = [t for t in conversation.turns if (t.seq or 0) >= start]
        progress.add(skipped=len(conversation.turns) - len(todo))
        for first in range(0, len(todo), batch):
            stored = hv.append_turns(opened.session_id, todo[first : first + batch])
            progress.add(new=stored.created, existing=stored.existing)


def _import(hv: Handover, args: argparse.Namespace) -> int:
    conversations = _sources.read(Path(args.file), args.format, args.user)
    total = sum(len(c.turns) for c in conversations)
    progress = Progress(total, sys.stderr)
    try:
        import_history(hv, conversations, agent=args.agent, batch=args.batch_size,
                       verify=args.verify, progress=progress)  # fmt: skip
    except (KeyboardInterrupt, HandoverError) as error:
        progress.show(final=True)
        if isinstance(error, APIError) and error.code == "turn_conflict":
            print(f"handover import: {_describe(error)} The file differs from what an earlier "
                  "import stored in that session: nothing was overwritten.", file=sys.stderr)  # fmt: skip
            return 1
        reason = "interrupted" if isinstance(error, KeyboardInterrupt) else _describe(error)
        print(f"handover import: {reason}. Run the same command again to resume: "
              "nothing is stored twice.", file=sys.stderr)  # fmt: skip
        return 130 if isinstance(error, KeyboardInterrupt) else 1
    progress.show(final=True)
    sessions = sum(1 for c in conversations if c.turns)
    seconds = time.monotonic() - progress.started
    print(f"Imported {total:,} turns in {sessions:,} sessions: {progress.new:,} new, "
          f"{progress.existing + progress.skipped:,} already stored ({seconds:.1f} s).")  # fmt: skip
    return 0


def _export(hv: Handover, args: argparse.Namespace) -> int:
    if args.output in (None, "-"):
        hv.export_user_to(args.user, sys.stdout.buffer, embeddings=args.embeddings)
        sys.stdout.flush()
        return 0
    target = Path(args.output)
    partial = target.with_name(target.name + ".part")  # never a half export under the name
    with partial.open("wb") as out:
        size = hv.export_user_to(args.user, out, embeddings=args.embeddings)
    partial.replace(target)
    print(f"Exported {args.user}: {size:,} bytes to {target}.", file=sys.stderr)
    return 0


def _search(hv: Handover, args: argparse.Namespace) -> int:
    found = hv.search(args.user, args.query, agent=args.agent, k=args.k, session=args.session)
    if args.json:
        print(json.dumps(found.raw, indent=2, ensure_ascii=False))
        return 0
    if not found.results:
        print("Nothing found.")
    for rank, hit in enumerate(found.results, 1):
        when = f" ({hit.occurred_at:%Y-%m-%d})" if hit.occurred_at else ""
        stale = f" [stale: {hit.note or 'changed since'}]" if hit.stale else ""
        print(
            f"{rank:>2}. {hit.score:.2f} {hit.confidence:<6} {hit.source:<6} {hit.text}{when}{stale}"
        )
    return 0


def _facts(hv: Handover, args: argparse.Namespace) -> int:
    facts = hv.list_entities(args.user, agent=args.agent, key=args.key, as_of=args.as_of)
    if args.json:
        print(json.dumps([f.raw for f in facts], indent=2, ensure_ascii=False))
        return 0
    if not facts:
        print(f"No current facts about {args.user}.")
    width = max((len(f.key) for f in facts), default=0)
    for fact in sorted(facts, key=lambda f: f.key):
        pinned = ", pinned" if fact.pinned else ""
        print(f"{fact.key:<{width}}  {fact.value_text}  ({fact.source}, since "
              f"{fact.valid_from:%Y-%m-%d}{pinned})")  # fmt: skip
    return 0


def _describe(error: BaseException) -> str:
    if isinstance(error, APIError):
        return f"{error.code}: {error.detail}"
    return str(error)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="handover", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    top.add_argument("--url", help="the Handover API (default: $HANDOVER_URL or :8000)")
    commands = top.add_subparsers(dest="command", required=True)

    load = commands.add_parser("import", help="import conversation history, resumably")
    load.add_argument("file", help="a .jsonl file, a ChatGPT conversations.json (or the "
                      "export's .zip), or a LoCoMo-format .json")  # fmt: skip
    load.add_argument("--agent", required=True, help="the agent's slug")
    load.add_argument("--user", help="whose history it is (LoCoMo: default the sample id)")
    load.add_argument("--format", choices=_sources.FORMATS, help="default: from the file")
    load.add_argument("--batch-size", type=int, default=BATCH, help=f"turns a request ({BATCH})")
    load.add_argument("--verify", action="store_true", help="send the turns already stored "
                      "too: the server checks them against the file (a changed one is an error)")  # fmt: skip
    load.set_defaults(run=_import)

    export = commands.add_parser("export", help="everything held about a user, as JSON")
    export.add_argument("user")
    export.add_argument("-o", "--output", help="a file (default: standard output)")
    export.add_argument("--embeddings", action="store_true", help="include the vectors")
    export.set_defaults(run=_export)

    search = commands.add_parser("search", help="search a user's memory")
    search.add_argument("user")
    search.add_argument("query")
    search.add_argument("-k", type=int, default=10, help="results (10)")
    search.add_argument("--session", help="keep to this session (its session_id, a UUID)")
    search.set_defaults(run=_search)

    facts = commands.add_parser("facts", help="a user's current facts")
    facts.add_argument("user")
    facts.add_argument("--key", help="only this key")
    facts.add_argument("--as-of", help="what was true at this time (ISO 8601)")
    facts.set_defaults(run=_facts)

    for command in (search, facts):
        command.add_argument("--agent", help="the agent's slug (not needed with a scoped key)")
        command.add_argument("--json", action="store_true", help="the API's JSON")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not os.environ.get("HANDOVER_API_KEY"):
        print("handover: set HANDOVER_API_KEY", file=sys.stderr)
        return 2
    try:
        with Handover(base_url=args.url) as hv:
            return int(args.run(hv, args))
    except _sources.SourceError as error:
        print(f"handover {args.command}: {error}", file=sys.stderr)
        return 2
    except HandoverError as error:
        print(f"handover {args.command}: {_describe(error)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

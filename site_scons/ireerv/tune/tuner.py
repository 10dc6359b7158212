"""A tune: the untuned model measured, candidates in rounds, the winners verified.

Round r builds the model with the r-th candidate of every dispatch at once: each
dispatch is timed on its own in the profile, so one build and one run measure a
candidate for every layer.  A round that fails is split into one round per dispatch,
so a failing candidate fails alone.  A dispatch's winner is its fastest passing
candidate, and only if it beats the board's own choice (the untuned round); a last
round builds all winners together and checks that the model passes with them.
Finished rounds are kept by digest, so an interrupted tune continues where it stopped;
a round the interrupt stopped is not kept (ireerv.tune.interrupt).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ireerv.tune import interrupt, space, spec
from ireerv.tune.measure import Result, Round
from ireerv.util.files import atomic_write

Runner = Callable[[Sequence[Round]], Iterator[tuple[Round, Result]]]


class TuneError(Exception):
    """A tune that cannot go on."""


@dataclass
class Store:
    """Finished rounds by digest, on disk after each one (an interrupted tune resumes)."""

    path: Path
    context: str  # what else the results depend on: the source, the lock
    done: dict[str, Result] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.path.is_file():
            try:
                self.done = {k: Result.from_json(v)
                             for k, v in json.loads(self.path.read_text()).items()}
            except (ValueError, KeyError, TypeError):
                self.done = {}  # unreadable: measured again

    def get(self, rnd: Round) -> Result | None:
        return self.done.get(rnd.digest(self.context))

    def put(self, rnd: Round, result: Result) -> None:
        self.done[rnd.digest(self.context)] = result
        atomic_write(self.path, json.dumps({k: v.as_json() for k, v in self.done.items()},
                                           indent=1, sort_keys=True) + "\n")


@dataclass
class Outcome:
    untuned: Result
    tuned: Result | None
    candidates: dict[space.Dispatch, list[tuple[space.Tiles, Result]]]
    chosen: list[tuple[space.Dispatch, space.Tiles]]
    budget: int  # candidates tried per dispatch: BUDGET, or fewer where fewer exist


class Progress:
    """One line per finished round: how many are left, the time left, the best so far."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say, self.times = say, []
        self.best: dict[str, tuple[int, int]] = {}  # dispatch -> (untuned, best)

    def round_done(self, rnd: Round, result: Result, left: int, seconds: float | None) -> None:
        if seconds is not None:
            self.times.append(seconds)
        for key, cycles in result.cycles.items():
            if result.passed and key in self.best:
                self.best[key] = (self.best[key][0], min(self.best[key][1], cycles))
        # The times are between results, so they already count the rounds run side by side.
        minutes = sum(self.times) / len(self.times) * left / 60 if self.times else 0
        eta = f", about {max(1, round(minutes))} min left" if self.times and left else ""
        saved = sum(u - b for u, b in self.best.values())
        verdict = "" if result.passed else " (failed)"
        self.say(f"tune: {rnd.name}{verdict}: {left} rounds left{eta}; best so far "
                 f"{saved:,} cycles fewer than untuned over {len(self.best)} dispatches")


def _run(rounds: Sequence[Round], runner: Runner, store: Store,
         progress: Progress) -> dict[Round, Result]:
    results = {r: found for r in rounds if (found := store.get(r)) is not None}
    todo = [r for r in rounds if r not in results]
    for rnd in results:
        progress.round_done(rnd, results[rnd], len(todo), None)
    started = time.monotonic()
    for rnd, result in runner(todo):
        interrupt.check()  # a round that ends after the interrupt may have been cut short
        if not result.passed and result.detail:
            progress.say(f"tune: {rnd.name}: " + result.detail.replace("\n", "\n  "))
        store.put(rnd, result)
        results[rnd] = result
        progress.round_done(rnd, result, len(rounds) - len(results),
                            time.monotonic() - started)
        started = time.monotonic()
    return results


def _spec(model: str, board: str, chosen: Sequence[tuple[space.Dispatch, space.Tiles]]) -> str:
    return spec.render(f"Candidate configurations for {model} on {board}.", chosen)


def tune(model: str, board: str, budget: int, runner: Runner, store: Store,
         progress: Progress, files: tuple[str, str]) -> Outcome:
    """`files`: where, in a copy of the project, a round writes its tuning file and reads
    its profile's record (measure.Round)."""

    def make(name: str, text: str) -> Round:
        return Round(name, model, board, text, *files)

    untuned = _run([make("untuned", "")], runner, store, progress)
    base = next(iter(untuned.values()))
    if not base.passed:
        raise TuneError(f"{model} on {board} fails untuned: {base.detail or 'see above'}")
    dispatches = [d for key in base.cycles if (d := space.parse_key(key))]
    progress.best = {d.key: (base.cycles[d.key], base.cycles[d.key]) for d in dispatches}
    lists = {d: space.candidates(d, budget) for d in dispatches}
    most = max(map(len, lists.values()), default=0)
    if budget > most:
        progress.say(f"tune: BUDGET={budget:,} is more than the {most} candidates of any "
                     f"dispatch: {most} rounds")
        budget = most
    rounds = {}
    for r in range(budget):
        chosen = [(d, c[r]) for d, c in lists.items() if r < len(c)]
        if chosen:
            rounds[make(f"round {r + 1}", _spec(model, board, chosen))] = chosen
    measured = _run(list(rounds), runner, store, progress)
    found: dict[space.Dispatch, list[tuple[space.Tiles, Result]]] = {d: [] for d in dispatches}
    split = {}
    for rnd, chosen in rounds.items():
        if measured[rnd].passed or len(chosen) == 1:
            for d, tiles in chosen:
                found[d].append((tiles, measured[rnd]))
            continue
        for d, tiles in chosen:  # which of them failed: each alone
            split[make(f"{rnd.name}, {d.key} alone",
                       _spec(model, board, [(d, tiles)]))] = (d, tiles)
    for rnd, result in _run(list(split), runner, store, progress).items():
        found[split[rnd][0]].append((split[rnd][1], result))
    for d, tried in found.items():  # in the order they were ranked, however they ran
        tried.sort(key=lambda tr: lists[d].index(tr[0]))
    chosen = _winners(found, base)
    if not chosen:
        return Outcome(base, None, found, [], budget)
    final = _run([make("tuned", _spec(model, board, chosen))],
                 runner, store, progress)
    tuned = next(iter(final.values()))
    if not tuned.passed:
        raise TuneError(f"{model} on {board} fails with the winners together: "
                        f"{tuned.detail or 'see above'}")
    return Outcome(base, tuned, found, chosen, budget)


def _winners(found: dict[space.Dispatch, list[tuple[space.Tiles, Result]]],
             base: Result) -> list[tuple[space.Dispatch, space.Tiles]]:
    """Each dispatch's fastest passing candidate, where it beats the untuned build."""
    chosen = []
    for d, tried in sorted(found.items()):
        passing = [(r.cycles[d.key], t) for t, r in tried if r.passed and d.key in r.cycles]
        if passing and min(passing)[0] < base.cycles[d.key]:
            chosen.append((d, min(passing)[1]))
    return chosen

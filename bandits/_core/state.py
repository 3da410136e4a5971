"""Saved policy state: a readable, versioned JSON file that resumes a policy exactly.

Design (``docs/choices.md``, "Saved state"): the file stores what the policy was built
from (the registry name, the arms and their IDs, the arguments of :func:`bandits.policy`)
and the full event log (every ``ask(n)`` with the arms it returned, every ``tell`` and
``observe`` with its rewards, every ``cancel`` with its arms). :func:`load_policy`
rebuilds the policy and replays the log through the same step kernels, then checks the
replay against a summary stored next to the log -- samples, counts, outstanding arms, the
policy's random-generator state, stop reason and recommendation -- and refuses the file if
anything differs. Replaying instead
of serialising each family's arrays keeps one format for every algorithm, and the
continuation after loading is the uninterrupted run by construction (a test checks it for
every registered algorithm). Replay costs one step per logged reward: milliseconds per
thousand rewards.

Floats are written by ``json`` with ``repr`` (shortest round-trip), so rewards and arms come
back bit for bit. The file is written to a temporary file in the same directory and moved
into place with ``os.replace``, so an interrupted save leaves the previous file intact.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from bandits._core.model_check import ModelCheckWarning

FORMAT = "oed-bandits policy state"
VERSION = 1


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _plain(value: Any) -> Any:
    """Arms (ints) or subsets (int arrays) as plain JSON values: ints and lists of ints."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    return int(value)


def summary(pol: Any) -> dict:
    """What a replay must reproduce (compared by :func:`load_policy`)."""
    rec = pol.recommendation
    return {"samples": int(pol.samples), "counts": [int(c) for c in pol.counts],
            "outstanding": _plain(pol.outstanding), "done": bool(pol.done),
            "stopped_by": pol.stopped_by,
            "recommendation": None if rec is None else [int(a) for a in np.ravel(rec)],
            "reward_sum": pol.reward_sum, "rng": [str(int(v)) for v in rng_state(pol)]}


def rng_state(pol: Any) -> list[int]:
    """The policy's random-generator state (its tie-breaking stream), if it has one."""
    for holder, name in ((pol, "_rng"), (getattr(pol, "_eng", None), "rng_policy")):
        arr = getattr(holder, name, None) if holder is not None else None
        if isinstance(arr, np.ndarray):
            return [int(v) for v in arr.ravel()]
    return []


def write_json_atomic(path: str | Path, data: dict) -> None:
    """Write ``data`` as indented JSON to ``path`` via a temporary file and ``os.replace``."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=p.name + ".", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, indent=1, allow_nan=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def state_dict(pol: Any, extra: dict | None = None) -> dict:
    """The JSON document of a policy's state."""
    cfg = getattr(pol, "_config", None)
    if cfg is None:
        raise ValueError("policy: only a policy built by bandits.policy(name, arms, ...) "
                         "can be saved (its construction arguments are recorded there)")
    arms = cfg["arms"]  # the arms' features, or the number of arms (subset algorithms)
    arms = int(arms) if isinstance(arms, (int, np.integer)) else \
        np.asarray(arms, dtype=np.float64).tolist()
    doc = {"format": FORMAT, "version": VERSION, "algorithm": cfg["algorithm"],
           "arms": arms, "ids": None if pol.ids is None else list(pol.ids),
           "arguments": _jsonable(cfg["arguments"]),
           "events": [{"kind": k, "arms": list(a), "rewards": r, **({"n": n} if n else {})}
                      for k, a, r, n in _events(pol)],
           "late": _jsonable(getattr(pol, "late", [])),
           "state": summary(pol)}
    if extra is not None:
        doc["experiment"] = _jsonable(extra)
    return doc


def _events(pol: Any):
    for ev in pol._events():
        kind, arms, rewards = ev[0], ev[1], ev[2]
        n = ev[3] if len(ev) > 3 else None
        yield kind, _plain(arms), None if rewards is None else list(rewards), n


def save_policy(pol: Any, path: str | Path, extra: dict | None = None) -> None:
    """Write the state of ``pol`` to ``path`` (atomically)."""
    write_json_atomic(path, state_dict(pol, extra))


def read_state(path: str | Path) -> dict:
    """The JSON document of a state file, with its format and version checked."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"state file {str(p)!r} does not exist")
    try:
        doc = json.loads(p.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"state file {str(p)!r} is not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"state file {str(p)!r} is not an oed-bandits policy state")
    if doc.get("version") != VERSION:
        raise ValueError(f"state file {str(p)!r} has version {doc.get('version')!r}; this "
                         f"version of oed-bandits reads version {VERSION}")
    return doc


def _replay_hint(pol: Any, doc: dict) -> str:
    """What a replay mismatch can come from that the user can mend: an option the state
    does not record whose default was different when it was saved (the policy's
    ``former_defaults``, e.g. a G/XY-static rule before 0.1.0's relaxation + rounding)."""
    args = doc.get("arguments", {})
    missing = {k: v for k, v in getattr(pol, "former_defaults", {}).items() if k not in args}
    if not missing:
        return ""
    pairs = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in missing.items())
    return (f"; a state saved before its options were recorded ran the former defaults: "
            f"add {pairs} to its \"arguments\"")


def policy_from_state(doc: dict, source: str = "state") -> Any:
    """Rebuild and replay a policy from a state document; ValueError if the replay does
    not reproduce the stored summary."""
    from bandits.registry import policy

    arms = doc["arms"]
    pol = policy(doc["algorithm"], arms if isinstance(arms, int) else
                 np.asarray(arms, dtype=np.float64), **doc["arguments"])
    pol.ids = doc.get("ids")
    with warnings.catch_warnings():  # a model check's warning was given when it happened
        warnings.simplefilter("ignore", ModelCheckWarning)
        _replay(pol, doc, source)
    got = summary(pol)
    if got != doc["state"]:
        diff = sorted(k for k in got if got[k] != doc["state"].get(k))
        raise ValueError(f"{source}: the replay does not reproduce the stored state "
                         f"(differs in {', '.join(diff)})")
    pol.late[:] = [list(x) for x in doc.get("late", [])]
    return pol


def _replay(pol: Any, doc: dict, source: str) -> None:
    """Feed a fresh policy the events of a state document, checking every ask."""
    for ev in doc["events"]:
        kind = ev["kind"]
        if kind == "ask":
            got = _plain(pol.ask(int(ev.get("n", len(ev["arms"]) or 1))))
            if got != ev["arms"]:
                raise ValueError(f"{source}: replay asked {got} where the log has "
                                 f"{ev['arms']} (file edited, or another version?)"
                                 + _replay_hint(pol, doc))
        elif kind == "tell":
            pol.tell(ev["arms"], ev["rewards"])
        elif kind == "observe":
            with warnings.catch_warnings():  # said when the data were first observed
                warnings.simplefilter("ignore", UserWarning)
                pol.observe(ev["arms"], ev["rewards"])
        elif kind == "cancel":
            pol.cancel(ev["arms"])
        else:
            raise ValueError(f"{source}: unknown event kind {kind!r}")


def load_policy(path: str | Path) -> Any:
    """Resume a policy saved by ``policy.save(path)``: the continuation equals the
    uninterrupted run (same asks, same decisions, same random stream)."""
    return policy_from_state(read_state(path), source=f"state file {str(path)!r}")

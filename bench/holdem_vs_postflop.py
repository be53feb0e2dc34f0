"""bluff against postflop-solver on issue 40's hold'em spots, side by side.

Run through bench/holdem_vs_postflop.sh, which fetches and builds the peer and our driver
(bench/postflop_driver) and builds bluff. Usage:

    python3 bench/holdem_vs_postflop.py BLUFF DRIVER [--results FILE] [--spots flop,turn,raked]

For each spot (bench/spots/*.toml) both solvers run with 2 threads and a measurement every 10
iterations; a run's seconds go from its first iteration to the stop, measurements included,
building the tree and allocating excluded. The peer's driver records the time to 0.5% and to
0.1% of the pot in one run (it stops at 0.1%); bluff runs `bluff solve SPOT.toml --json
--threads 2 --check-every 10 --target-pot-pct P` once for P = 0.5 and once for P = 0.1. The
runs alternate between the solvers (flop: 3 rounds, turn: 5, raked flop: 1, for its EVs) and
each spot reports the median. Peak RSS is GNU time's %M (bluff's own `peak_rss_bytes` is shown
beside it). The trees' decision, terminal and chance nodes per street are printed and must be
equal: the driver counts the peer's tree (`{"decision": [f, t, r], "terminal": [...],
"chance": [...]}`); bluff's come from the `decision_nodes` and `terminal_nodes` fields of its
JSON (per street: flop, turn, river), compared with the peer's decision and terminal counts
(bluff's JSON gives no chance counts, so the peer's are printed alone).

Every run is saved to the results file (bench/out/holdem_vs_postflop.json by default) as it
ends; a stopped run resumes from there and repeats only what is missing. Until bluff's spot
solver exists, its runs fail and the script says so, printing the peer's column alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

from common import markdown_table

HERE = os.path.dirname(os.path.abspath(__file__))
SPOTS = {
    "flop": (os.path.join(HERE, "spots", "3betpot_fast_flop.toml"), 3),
    "turn": (os.path.join(HERE, "spots", "3betpot_fast_turn.toml"), 5),
    "raked": (os.path.join(HERE, "spots", "3betpot_fast_flop_raked.toml"), 1),
}
# Issue 40's golden values (PioSOLVER's, reproduced by postflop-solver) at 0.1% of the pot.
GOLDEN = {
    "flop": {"equity": 0.55347, "equity_tol": 1e-5, "ev": [105.11, 74.89], "ev_tol": 0.2},
    "raked": {"ev": [95.57, 66.98], "ev_tol": 0.2},
}
TARGETS = [0.5, 0.1]
THREADS, CHECK_EVERY = 2, 10


def bluff_counts(run: dict[str, Any]) -> dict[str, list[int]] | None:
    """Decision and terminal nodes per street (flop, turn, river) from bluff's JSON, or None."""
    decision, terminal = run.get("decision_nodes"), run.get("terminal_nodes")
    if decision is None or terminal is None:
        return None
    return {"decision": list(decision), "terminal": list(terminal)}


def timed_json(args: list[str]) -> tuple[dict[str, Any] | None, int, float, str]:
    """Runs a command under GNU time: its JSON (None on failure), peak RSS bytes, user + system
    CPU seconds of the whole process (building included), stderr."""
    with tempfile.NamedTemporaryFile("r") as rss:
        p = subprocess.run(
            ["/usr/bin/time", "-f", "%M %U %S", "-o", rss.name, *args],
            capture_output=True,
            text=True,
        )
        fields = rss.read().split()
    try:
        peak, cpu = int(fields[-3]) * 1024, float(fields[-2]) + float(fields[-1])
    except (IndexError, ValueError):
        peak, cpu = 0, 0.0
    if p.returncode != 0:
        return None, peak, cpu, p.stderr.strip()
    return json.loads(p.stdout), peak, cpu, p.stderr.strip()


def peer_run(driver: str, spot: str) -> dict[str, Any]:
    out, peak, cpu, err = timed_json(
        [
            driver,
            spot,
            "--threads",
            str(THREADS),
            "--check-every",
            str(CHECK_EVERY),
            "--target-pot-pct",
            str(min(TARGETS)),
        ]
    )
    if out is None:
        raise RuntimeError(f"postflop-solver's driver failed on {spot}: {err}")
    out.pop("curve", None)
    out["time_peak_rss_bytes"] = peak
    out["cpu_seconds"] = cpu
    return out


def bluff_run(bluff: str, spot: str, target: float) -> dict[str, Any]:
    """One bluff solve to `target` % of the pot; {"error": message} when it fails."""
    out, peak, cpu, err = timed_json(
        [
            bluff,
            "solve",
            spot,
            "--json",
            "--threads",
            str(THREADS),
            "--check-every",
            str(CHECK_EVERY),
            "--target-pot-pct",
            str(target),
        ]
    )
    if out is None:
        return {"error": err.splitlines()[-1] if err else "failed with no message"}
    out.pop("curve", None)
    out.pop("strategy", None)
    out["time_peak_rss_bytes"] = peak
    out["cpu_seconds"] = cpu
    return out


def load(path: str) -> dict[str, Any]:
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def save(path: str, results: dict[str, Any]) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(results, f, indent=1)
    os.replace(tmp, path)


def fmt(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bluff")
    ap.add_argument("driver")
    ap.add_argument("--results", default=os.path.join(HERE, "out", "holdem_vs_postflop.json"))
    ap.add_argument("--spots", default="flop,turn,raked")
    args = ap.parse_args()
    names = [s for s in args.spots.split(",") if s]
    for s in names:
        if s not in SPOTS:
            sys.exit(f"--spots: unknown spot {s!r} (known: {', '.join(SPOTS)})")
    results = load(args.results)
    bluff_missing = None

    for name in names:
        spot, rounds = SPOTS[name]
        r = results.setdefault(name, {"peer": [], "bluff": {str(t): [] for t in TARGETS}})
        for k in range(rounds):
            if len(r["peer"]) <= k:
                print(f"{name}: postflop-solver, round {k + 1} of {rounds}", file=sys.stderr)
                r["peer"].append(peer_run(args.driver, spot))
                save(args.results, results)
            for t in TARGETS:
                runs = r["bluff"][str(t)]
                if len(runs) > k and "error" not in runs[k]:
                    continue
                if bluff_missing is not None:
                    continue
                print(f"{name}: bluff to {t}% of the pot, round {k + 1}", file=sys.stderr)
                got = bluff_run(args.bluff, spot, t)
                if "error" in got:
                    bluff_missing = got["error"]
                    continue
                del runs[k:]
                runs.append(got)
                save(args.results, results)

    if bluff_missing is not None:
        print(
            "bluff's spot solve is missing or failed (`bluff solve SPOT.toml --json "
            "--target-pot-pct P` said: " + bluff_missing + "); only postflop-solver's "
            "figures are shown.\n"
        )
    report(names, results)


def report(names: list[str], results: dict[str, Any]) -> None:
    rows = []
    checks = []
    for name in names:
        r = results[name]
        peer = r["peer"]
        p05 = [x["to_0_5_pct"] for x in peer if x["to_0_5_pct"]]
        p01 = [x["to_target"] for x in peer if x["to_target"]]
        peer_s05 = median([x["seconds"] for x in p05])
        peer_s01 = median([x["seconds"] for x in p01])
        rows.append(
            [
                name,
                "postflop-solver",
                len(peer),
                fmt(median([x["iterations"] for x in p05]), 0),
                fmt(peer_s05),
                fmt(median([x["iterations"] for x in p01]), 0),
                fmt(peer_s01),
                fmt(median([x["seconds_per_iteration"] for x in peer]), 4),
                fmt(median([x["time_peak_rss_bytes"] / 1e6 for x in peer]), 0),
                fmt(median([x.get("cpu_seconds", 0.0) for x in peer]), 1),
                fmt(peer[-1]["root_equity"][0], 5),
                "/".join(fmt(v) for v in peer[-1]["root_ev"]),
            ]
        )
        b05, b01 = r["bluff"]["0.5"], r["bluff"]["0.1"]
        if b01:
            bs05 = median([x["seconds"] for x in b05])
            bs01 = median([x["seconds"] for x in b01])
            rows.append(
                [
                    name,
                    "bluff",
                    len(b01),
                    fmt(median([x["iterations"] for x in b05]), 0),
                    fmt(bs05),
                    fmt(median([x["iterations"] for x in b01]), 0),
                    fmt(bs01),
                    fmt(median([x["seconds"] / max(x["iterations"], 1) for x in b01]), 4),
                    fmt(median([x["time_peak_rss_bytes"] / 1e6 for x in b01]), 0),
                    fmt(median([x.get("cpu_seconds", 0.0) for x in b01]), 1),
                    fmt(b01[-1]["root_equity"][0], 5),
                    "/".join(fmt(v) for v in b01[-1]["root_ev"]),
                ]
            )
            ratio = [
                fmt(bs05 / peer_s05 if bs05 and peer_s05 else None),
                fmt(bs01 / peer_s01 if bs01 and peer_s01 else None),
            ]
            rss = median([x["time_peak_rss_bytes"] for x in b01])
            peer_rss = median([x["time_peak_rss_bytes"] for x in peer])
            checks.append(
                f"{name}: bluff / postflop-solver time to 0.5%: {ratio[0]}, to 0.1%: "
                f"{ratio[1]}; peak RSS {fmt(rss / peer_rss if rss and peer_rss else None)}; "
                f"bluff's own peak_rss_bytes {b01[-1].get('peak_rss_bytes')} against GNU "
                f"time's {b01[-1]['time_peak_rss_bytes']}"
            )
            counts = bluff_counts(b01[-1])
            theirs = {k: peer[-1]["counts"][k] for k in ("decision", "terminal")}
            if counts is None:
                checks.append(f"{name}: bluff's JSON gives no tree counts: not compared")
            elif counts != theirs:
                checks.append(f"{name}: TREES DIFFER: bluff {counts}, postflop-solver {theirs}")
            else:
                checks.append(f"{name}: trees equal: {counts}")
        checks.append(f"{name}: postflop-solver's tree: {peer[-1]['counts']}")
        golden = GOLDEN.get(name)
        if golden:
            solvers = [("postflop-solver", peer[-1])] + ([("bluff", b01[-1])] if b01 else [])
            for who, x in solvers:
                ok = all(
                    abs(x["root_ev"][p] - golden["ev"][p]) <= golden["ev_tol"] for p in range(2)
                )
                text = f"EV {x['root_ev'][0]:.2f}/{x['root_ev'][1]:.2f}"
                if "equity" in golden:
                    ok = ok and abs(x["root_equity"][0] - golden["equity"]) <= golden["equity_tol"]
                    text = f"equity {x['root_equity'][0]:.5f}, " + text
                checks.append(f"{name}: {who} golden values {'ok' if ok else 'OFF'}: {text}")
    print(
        markdown_table(
            [
                "spot",
                "solver",
                "runs",
                "iterations to 0.5%",
                "s to 0.5%",
                "iterations to 0.1%",
                "s to 0.1%",
                "s / iteration",
                "peak RSS (MB)",
                "CPU s (run to 0.1%)",
                "root equity OOP",
                "root EV OOP/IP",
            ],
            rows,
        )
    )
    print()
    for c in checks:
        print(c)
    print(f"\nload average: {os.getloadavg()[0]:.2f} (wall times on a loaded machine are noise)")


if __name__ == "__main__":
    main()

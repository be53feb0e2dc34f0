"""Monte Carlo CFR: bluff against OpenSpiel's C++ solvers (driven from Python, as its examples
do) and LiteEFG's sampling traversals, side by side in one run.

Run through bench/mccfr_vs_peers.sh, which builds bluff and prepares the venv.

1. Speed. Iterations per second, an iteration being one traversal per player as OpenSpiel's
   ExternalSamplingMCCFRSolver.run_iteration() and OutcomeSamplingMCCFRSolver.run_iteration()
   both do (two traversals in a two-player game). Each rate is the best of REPS runs of
   RATE_SECONDS taken in turns. bluff runs on the game's rules (`--rules`) and on the arena.
2. Time. bluff's ES reaching the exploitability OpenSpiel's ES has after 60 s.
3. Curves. Exploitability against solving time (evaluations excluded) for bluff ES/OS,
   CFR+ and DCFR, OpenSpiel ES/OS and LiteEFG's External (CFR graph) and Outcome (OS-MCCFR
   graph) traversals; every point by an exact best response (bluff's, OpenSpiel's
   pyspiel.exploitability, LiteEFG's env.exploitability). One SVG per game.

usage: python bench/mccfr_vs_peers.py BLUFF OUT_DIR [--quick]
"""

import gc
import json
import os
import subprocess
import sys
import time

import common
import mccfr_openspiel as ops
import pyspiel

BLUFF = sys.argv[1]
OUT = sys.argv[2]
QUICK = "--quick" in sys.argv
REPS = 1 if QUICK else 2
RATE_SECONDS = 3 if QUICK else 10
SEED = 1

CHECKPOINTS = [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120]
GAMES = [
    # bluff spec, OpenSpiel loader, curve horizon (s), OpenSpiel's evaluation times
    ("leduc", ops.leduc, 60, CHECKPOINTS),
    ("liars-dice", ops.liars_dice, 60, CHECKPOINTS),
    # pyspiel.exploitability takes some 140 s per policy on goofspiel 5: three points.
    ("goofspiel(cards=5)", ops.goofspiel5, 120, [8, 60, 120]),
]


def load_avg():
    return os.getloadavg()[0]


def bluff(spec, *args):
    """One `bluff solve --json` run of the built binary, parsed."""
    return common.bluff_solve(BLUFF, spec, *args)


def arena_spec(spec):
    """A spec that plays the game's arena: the spec itself when the arena is bluff's default
    engine there, else the game's .efg export (the same tree; a file has no other engine)."""
    probe = bluff(spec, "--algo", "es-mccfr", "--iterations", "1", "--no-eval")
    if probe["engine"] == "arena":
        return spec
    path = os.path.join(OUT, "arena.efg")
    subprocess.run([BLUFF, "export", spec, "-o", path], check=True, capture_output=True)
    return path


def openspiel_rate(game, algo):
    return ops.rate(game, algo, RATE_SECONDS, SEED)


def lite_env(game, traverse):
    import LiteEFG as leg
    from LiteEFG.baselines.CFR import graph as cfr_graph
    from LiteEFG.baselines.OS_MCCFR import graph as os_graph

    env = leg.OpenSpielEnv(game, traverse_type=traverse, regenerate=False)
    g = cfr_graph() if traverse == "External" else os_graph()
    env.set_graph(g)
    return env, g


def lite_rate(env, g):
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < RATE_SECONDS:
        g.update_graph(env)
        env.update_strategy(g.current_strategy())
        n += 1
    return n / (time.perf_counter() - start)


def curve_openspiel(game, algo, horizon, checkpoints):
    solver = ops.solver(game, algo, SEED)
    points, solving, marks = [], 0.0, [c for c in checkpoints if c <= horizon]
    for mark in marks:
        start = time.perf_counter()
        while solving + (time.perf_counter() - start) < mark:
            for _ in range(10):
                solver.run_iteration()
        solving += time.perf_counter() - start
        e = pyspiel.exploitability(game, solver.average_policy())
        points.append((solving, e))
    return points


def curve_lite(env, g, horizon):
    points, solving, marks = [], 0.0, [c for c in CHECKPOINTS if c <= horizon]
    for mark in marks:
        start = time.perf_counter()
        while solving + (time.perf_counter() - start) < mark:
            g.update_graph(env)
            env.update_strategy(g.current_strategy())
        solving += time.perf_counter() - start
        points.append((solving, sum(env.exploitability(g.current_strategy(), "avg-iterate")) / 2))
    return points


def curve_bluff(spec, algo, horizon, *extra):
    path = os.path.join(OUT, "curve.csv")
    r = bluff(spec, "--algo", algo, "--time", str(horizon), "--curve", path, *extra)
    with open(path) as f:
        rows = [line.split(",") for line in f.read().split()[1:]]
    return [(float(s), float(e)) for _, e, s in rows], r


def first_time_at(points, target):
    for s, e in points:
        if e <= target:
            return s
    return None


def plot(spec, curves):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.5))
    for name, pts in curves.items():
        pts = [(s, e) for s, e in pts if s > 0 and e > 0]
        if pts:
            ax.plot(*zip(*pts), marker=".", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("solving time (s), evaluations excluded")
    ax.set_ylabel("exploitability (NashConv / 2)")
    ax.set_title(f"{spec}: exploitability against time (load {load_avg():.1f})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    name = spec.split("(")[0] + ("5" if "goofspiel" in spec else "")
    path = os.path.join(OUT, f"mccfr_{name}.svg")
    fig.savefig(path)
    plt.close(fig)
    return path


def main():
    os.makedirs(OUT, exist_ok=True)
    results = {}
    for spec, loader, horizon, os_marks in GAMES:
        if QUICK:
            horizon = min(horizon, 8)
            os_marks = [m for m in os_marks if m <= 8]
        game = loader()
        row = {"spec": spec, "load_start": load_avg()}
        # 1. Speed, in turns.
        arena = arena_spec(spec)
        rates = {k: 0.0 for k in ["os_es", "os_os", "rules_es", "rules_os", "arena_es", "arena_os"]}
        for _ in range(REPS):
            rates["os_es"] = max(rates["os_es"], openspiel_rate(game, "es"))
            rates["os_os"] = max(rates["os_os"], openspiel_rate(game, "os"))
            for engine in ["rules", "arena"]:
                extra = ["--rules"] if engine == "rules" else []
                for algo in ["es", "os"]:
                    r = bluff(
                        spec if engine == "rules" else arena,
                        "--algo",
                        f"{algo}-mccfr",
                        "--time",
                        str(RATE_SECONDS),
                        "--no-eval",
                        "--seed",
                        str(SEED),
                        *extra,
                    )
                    rates[f"{engine}_{algo}"] = max(
                        rates[f"{engine}_{algo}"], r["iterations_per_second"]
                    )
        lite = {}
        for traverse in ["External", "Outcome"]:
            t0 = time.perf_counter()
            try:
                env, g = lite_env(game, traverse)
                lite[traverse] = {"setup": time.perf_counter() - t0, "ok": True}
                lite[traverse]["rate"] = lite_rate(env, g)
                # LiteEFG holds the whole tree (some 4 GB on goofspiel 5): one at a time.
                del env, g
                gc.collect()
            except Exception as err:  # noqa: BLE001 - a peer that cannot run is reported
                lite[traverse] = {"error": repr(err)}
        row["rates"] = rates
        row["lite_rates"] = {k: v.get("rate") for k, v in lite.items()}
        row["lite_setup"] = {k: v.get("setup") for k, v in lite.items()}
        # 3. Curves (2. is read off them).
        curves = {}
        curves["OpenSpiel ES"] = curve_openspiel(game, "es", horizon, os_marks)
        curves["OpenSpiel OS"] = curve_openspiel(game, "os", horizon, os_marks)
        for traverse, name in [
            ("External", "LiteEFG External (CFR)"),
            ("Outcome", "LiteEFG Outcome (OS-MCCFR)"),
        ]:
            if lite[traverse].get("ok"):
                env, g = lite_env(game, traverse)
                curves[name] = curve_lite(env, g, horizon)
                del env, g
                gc.collect()
        bluff_runs = {}
        # The faster engine for each sampling solver; --target makes the rules engine measure.
        on_rules = {a: rates[f"rules_{a}"] >= rates[f"arena_{a}"] for a in ["es", "os"]}
        row["curve_engines"] = {a: ("rules" if on_rules[a] else "arena") for a in on_rules}
        for name, algo, game_spec, extra in [
            (
                "bluff ES",
                "es-mccfr",
                *((spec, ["--rules", "--target", "1e-9"]) if on_rules["es"] else (arena, [])),
            ),
            (
                "bluff OS",
                "os-mccfr",
                *((spec, ["--rules", "--target", "1e-9"]) if on_rules["os"] else (arena, [])),
            ),
            ("bluff CFR+", "cfr+", spec, []),
            ("bluff DCFR", "dcfr", spec, []),
        ]:
            curves[name], bluff_runs[name] = curve_bluff(game_spec, algo, horizon, *extra)
        # OpenSpiel's ES after 60 s (its last point in quick mode).
        at60 = next((p for p in curves["OpenSpiel ES"] if p[0] >= 59), curves["OpenSpiel ES"][-1])
        target = at60[1]
        row["openspiel_es_final"] = {"seconds": at60[0], "exploitability": target}
        row["bluff_es_time_to_openspiel_final"] = first_time_at(curves["bluff ES"], target)
        row["time_to_1e-2"] = {k: first_time_at(v, 1e-2) for k, v in curves.items()}
        row["curves"] = curves
        row["plot"] = plot(spec, curves)
        row["load_end"] = load_avg()
        results[spec] = row
        with open(os.path.join(OUT, "mccfr_vs_peers.json"), "w") as f:
            json.dump(results, f, indent=1)
        report(row)


def report(row):
    r = row["rates"]
    lr = row["lite_rates"]
    print(f"\n## {row['spec']} (load average {row['load_start']:.1f} -> {row['load_end']:.1f})")
    print("| solver | iterations/s | traversals/s | ratio to OpenSpiel |")
    print("|---|---|---|---|")
    print(f"| OpenSpiel ES (C++, run_iteration) | {r['os_es']:.0f} | {2 * r['os_es']:.0f} | 1 |")
    for engine in ["rules", "arena"]:
        print(
            f"| bluff ES ({engine}) | {r[engine + '_es']:.0f} | {2 * r[engine + '_es']:.0f} | "
            f"{r[engine + '_es'] / r['os_es']:.1f}x |"
        )
    print(
        f"| LiteEFG External (CFR graph) | {lr['External'] or 0:.0f} | "
        f"{2 * (lr['External'] or 0):.0f} | "
        f"{(lr['External'] or 0) / r['os_es']:.2f}x |"
    )
    print(f"| OpenSpiel OS (C++, run_iteration) | {r['os_os']:.0f} | {2 * r['os_os']:.0f} | 1 |")
    for engine in ["rules", "arena"]:
        print(
            f"| bluff OS ({engine}) | {r[engine + '_os']:.0f} | {2 * r[engine + '_os']:.0f} | "
            f"{r[engine + '_os'] / r['os_os']:.1f}x |"
        )
    print(
        f"| LiteEFG Outcome (OS-MCCFR graph) | {lr['Outcome'] or 0:.0f} | "
        f"{2 * (lr['Outcome'] or 0):.0f} | "
        f"{(lr['Outcome'] or 0) / r['os_os']:.2f}x |"
    )
    f = row["openspiel_es_final"]
    print(
        f"\nOpenSpiel ES after {f['seconds']:.0f} s: exploitability {f['exploitability']:.4g}; "
        f"bluff ES reaches it after {row['bluff_es_time_to_openspiel_final']} s"
    )
    print(
        "time to exploitability 1e-2 (s):",
        {k: (round(v, 2) if v else None) for k, v in row["time_to_1e-2"].items()},
    )
    print("plot:", row["plot"], flush=True)


if __name__ == "__main__":
    main()

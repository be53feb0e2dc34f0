"""HiGHS's simplex on bluff's LPs with and without its presolve, and the presolved LP's size.

Usage: bench/.venv/bin/python bench/highs_presolve.py FILE.mps ...
(bench/lp_vs_highs.sh creates the venv and writes the MPS files into target/bench-mps.)
Iteration counts do not depend on the machine's load; the times do.
"""

from __future__ import annotations

import sys

import highspy


def run(path: str, presolve: str) -> tuple[int, float, float]:
    """Simplex iterations, objective and run time of one HiGHS run (one thread)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", presolve)
    h.setOptionValue("solver", "simplex")
    h.setOptionValue("threads", 1)
    h.readModel(path)
    h.run()
    info = h.getInfo()
    return info.simplex_iteration_count, info.objective_function_value, h.getRunTime()


def main() -> None:
    print("| LP | rows x cols | presolved rows x cols | iterations on / off | seconds on / off |")
    print("|---|---|---|---|---|")
    for path in sys.argv[1:]:
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        # One thread in every instance: HiGHS refuses a run whose thread count differs from
        # the one its shared scheduler started with.
        h.setOptionValue("threads", 1)
        h.readModel(path)
        lp = h.getLp()
        h.presolve()
        reduced = h.getPresolvedLp()
        on = run(path, "on")
        off = run(path, "off")
        print(
            f"| {path} | {lp.num_row_} x {lp.num_col_} | {reduced.num_row_} x {reduced.num_col_} "
            f"| {on[0]} / {off[0]} | {on[2]:.3f} / {off[2]:.3f} |"
        )


if __name__ == "__main__":
    main()

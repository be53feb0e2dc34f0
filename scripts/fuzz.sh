#!/usr/bin/env bash
# Fuzz every reader with cargo-fuzz on the stable toolchain (libFuzzer, --sanitizer none: the
# readers are safe Rust, so the sanitizers' nightly-only instrumentation is not needed; panics,
# overflow checks, timeouts and out-of-memory are what is looked for).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 45 s, every target)
#
# Installs cargo-fuzz (pinned) into .tools/ on first use. Each target starts from its seeds in
# fuzz/seeds/TARGET (test fixtures and files bluff writes) plus what earlier runs found in
# fuzz/corpus/TARGET. A crash leaves its input in fuzz/artifacts/TARGET/ and fails the script:
# add that input as a regression test in tests/fuzz_regressions.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-45}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(efg nfg strategy_json contest game_spec mccfr_checkpoint holdem_spot http_request)
fi
tools="$PWD/.tools"
if [ ! -x "$tools/bin/cargo-fuzz" ]; then
    cargo install cargo-fuzz --version 0.13.2 --locked --root "$tools"
fi
export PATH="$tools/bin:$PATH"
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    echo "== fuzzing $t for ${seconds}s"
    # -rss_limit_mb: an input that makes a reader allocate past 2 GB counts as a crash;
    # -timeout: so does one that takes more than 10 s.
    log="fuzz/corpus/$t.log"
    status=0
    cargo fuzz run "$t" --sanitizer none "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
        -print_final_stats=1 > "$log" 2>&1 || status=$?
    grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$log" || true
    if [ "$status" -ne 0 ] || compgen -G "fuzz/artifacts/$t/*" > /dev/null; then
        echo "fuzz target $t failed (exit $status); its log ends:" >&2
        tail -40 "$log" >&2
        ls -l "fuzz/artifacts/$t" >&2 2>/dev/null || true
        exit 1
    fi
done
echo "fuzzing: ${#targets[@]} targets x ${seconds}s, no crash"

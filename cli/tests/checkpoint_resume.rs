//! `bluff solve --checkpoint / --resume`: a run stopped at any iteration (by its iteration
//! limit or by SIGINT/SIGTERM) and continued, with any thread count, ends with the same bits as
//! a run that was never stopped: regrets, strategy sums and current strategy (the checkpoint's
//! arrays), the average strategy file and the curve's iterations and exploitabilities.

mod common;

use bluff::cfr::checkpoint::{decode, Checkpoint};
use common::cli::bluff;
use predicates::str::contains;
use std::path::{Path, PathBuf};

/// Runs `bluff solve` with `args`, expecting success.
fn solve(args: &[&str], paths: &[(&str, &Path)]) {
    let mut cmd = bluff();
    cmd.arg("solve").args(args);
    for (flag, p) in paths {
        cmd.arg(flag).arg(p);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "bluff solve {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A checkpoint with the wall-clock fields cleared (they are the only ones allowed to differ).
fn timeless(path: &Path) -> Checkpoint {
    let mut c = decode(&std::fs::read(path).unwrap()).unwrap();
    c.solve_seconds = 0.0;
    for p in &mut c.points {
        p.seconds = 0.0;
    }
    c
}

/// The curve's iteration and exploitability columns (seconds dropped).
fn curve(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string())
        .collect()
}

struct Files {
    ckpt: PathBuf,
    strategy: PathBuf,
    curve: PathBuf,
}

fn files(dir: &Path, tag: &str) -> Files {
    Files {
        ckpt: dir.join(format!("{tag}.ckpt")),
        strategy: dir.join(format!("{tag}.json")),
        curve: dir.join(format!("{tag}.csv")),
    }
}

fn assert_same_run(a: &Files, b: &Files, what: &str) {
    let (ca, cb) = (timeless(&a.ckpt), timeless(&b.ckpt));
    assert_eq!(ca.state.iterations, cb.state.iterations, "{what}");
    for ((na, va), (nb, vb)) in ca.state.arrays.iter().zip(&cb.state.arrays) {
        assert_eq!(na, nb);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(va), bits(vb), "{what}: array {na} differs");
    }
    assert_eq!(ca, cb, "{what}: checkpoints differ");
    assert_eq!(
        std::fs::read_to_string(&a.strategy).unwrap(),
        std::fs::read_to_string(&b.strategy).unwrap(),
        "{what}: average strategies differ"
    );
    assert_eq!(curve(&a.curve), curve(&b.curve), "{what}: curves differ");
}

/// Every algorithm, stopped at several iterations and resumed with another thread count.
#[test]
fn resumed_runs_equal_uninterrupted_runs_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let total = 60u64;
    let algos: [&[&str]; 14] = [
        &["--algo", "cfr"],
        &["--algo", "cfr", "--updates", "alternating"],
        &["--algo", "cfr+"],
        &["--algo", "lcfr"],
        &["--algo", "dcfr", "--alpha", "1.2", "--gamma", "3"],
        &["--algo", "pcfr+"],
        &["--algo", "dcfr+"],
        &["--algo", "pdcfr+"],
        &["--algo", "hs-dcfr"],
        &["--algo", "hs-pcfr+"],
        &["--algo", "sapcfr+"],
        &["--algo", "vad-cfr"],
        &["--algo", "hs-dcfr-15"],
        &["--algo", "hs-pdcfr+-30"],
    ];
    for (k, algo) in algos.iter().enumerate() {
        let whole = files(dir.path(), &format!("whole{k}"));
        let n = total.to_string();
        let mut args: Vec<&str> = vec!["leduc", "--check-every", "7", "--threads", "2"];
        args.extend_from_slice(algo);
        args.extend_from_slice(&["--iterations", &n]);
        solve(
            &args,
            &[
                ("--checkpoint", &whole.ckpt),
                ("-o", &whole.strategy),
                ("--curve", &whole.curve),
            ],
        );
        // The hyperparameter schedules (hs-*) run over the planned --iterations, so their first
        // part plans all 60 and is stopped early by --time instead (at whatever iteration; 0.5
        // ms, as 60 Leduc iterations now take about 3 ms, the former limit).
        let scheduled = algo[1].starts_with("hs-");
        let stops: &[u64] = if scheduled { &[0] } else { &[1, 13, 59] };
        for &stop_at in stops {
            let part = files(dir.path(), &format!("part{k}_{stop_at}"));
            let m = stop_at.to_string();
            let mut first: Vec<&str> = vec!["leduc", "--check-every", "7", "--threads", "1"];
            first.extend_from_slice(algo);
            if scheduled {
                first.extend_from_slice(&["--iterations", &n, "--time", "0.0005"]);
            } else {
                first.extend_from_slice(&["--iterations", &m]);
            }
            solve(&first, &[("--checkpoint", &part.ckpt)]);
            // Resume with a different thread count; game and algorithm come from the file.
            solve(
                &["--iterations", &n, "--check-every", "7", "--threads", "2"],
                &[
                    ("--resume", &part.ckpt),
                    ("--checkpoint", &part.ckpt),
                    ("-o", &part.strategy),
                    ("--curve", &part.curve),
                ],
            );
            assert_same_run(&whole, &part, &format!("{algo:?} stopped at {stop_at}"));
        }
    }
}

/// A run can be resumed twice in a row (checkpoint of a resumed run).
#[test]
fn resuming_twice_is_still_bit_identical() {
    let dir = tempfile::tempdir().unwrap();
    let whole = files(dir.path(), "whole");
    solve(
        &["kuhn", "--algo", "dcfr", "--iterations", "500"],
        &[
            ("--checkpoint", &whole.ckpt),
            ("-o", &whole.strategy),
            ("--curve", &whole.curve),
        ],
    );
    let part = files(dir.path(), "part");
    solve(
        &["kuhn", "--algo", "dcfr", "--iterations", "123"],
        &[("--checkpoint", &part.ckpt)],
    );
    solve(
        &["--iterations", "321"],
        &[("--resume", &part.ckpt), ("--checkpoint", &part.ckpt)],
    );
    solve(
        &["kuhn", "--iterations", "500"],
        &[
            ("--resume", &part.ckpt),
            ("--checkpoint", &part.ckpt),
            ("-o", &part.strategy),
            ("--curve", &part.curve),
        ],
    );
    assert_same_run(&whole, &part, "resumed twice");
}

/// SIGINT and SIGTERM save the checkpoint and the strategy and exit 130 / 143; the saved run
/// continues to the same bits as an uninterrupted one.
#[cfg(unix)]
#[test]
fn a_signal_saves_the_run_which_then_resumes_exactly() {
    for (signal, status) in [("-INT", 130), ("-TERM", 143)] {
        let dir = tempfile::tempdir().unwrap();
        let part = files(dir.path(), "part");
        let bin = assert_cmd::cargo::cargo_bin("bluff");
        let mut cmd = std::process::Command::new(&bin);
        common::cli::stop_signals(&mut cmd, common::cli::StopSignals::Default);
        let child = cmd
            .args([
                "solve",
                "leduc",
                "--algo",
                "cfr+",
                "--iterations",
                "100000000",
            ])
            .args(["--check-every", "50", "--checkpoint-every", "0.05"])
            .arg("--checkpoint")
            .arg(&part.ckpt)
            .arg("-o")
            .arg(&part.strategy)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Wait for the first periodic checkpoint, so the run is well under way.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !part.ckpt.exists() {
            assert!(
                std::time::Instant::now() < deadline,
                "no checkpoint written"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        let out = common::cli::signal_and_wait(child, signal);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{stderr}");
        assert!(stderr.contains("interrupted by SIG"), "{stderr}");
        assert!(part.strategy.exists(), "strategy not written on {signal}");
        let done = decode(&std::fs::read(&part.ckpt).unwrap())
            .unwrap()
            .state
            .iterations;
        assert!(done >= 1);
        let n = (done + 17).to_string();
        solve(
            &["--iterations", &n, "--check-every", "50", "--threads", "1"],
            &[
                ("--resume", &part.ckpt),
                ("--checkpoint", &part.ckpt),
                ("-o", &part.strategy),
                ("--curve", &part.curve),
            ],
        );
        let whole = files(dir.path(), "whole");
        solve(
            &[
                "leduc",
                "--algo",
                "cfr+",
                "--iterations",
                &n,
                "--check-every",
                "50",
            ],
            &[
                ("--checkpoint", &whole.ckpt),
                ("-o", &whole.strategy),
                ("--curve", &whole.curve),
            ],
        );
        assert_same_run(&whole, &part, &format!("signal {signal} at {done}"));
    }
}

#[test]
fn a_checkpoint_refuses_another_game_algorithm_or_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("k.ckpt");
    solve(
        &["kuhn", "--algo", "cfr+", "--iterations", "10"],
        &[("--checkpoint", &ckpt)],
    );
    let resume = |extra: &[&str]| {
        bluff()
            .arg("solve")
            .args(extra)
            .args(["--iterations", "20", "--resume"])
            .arg(&ckpt)
            .assert()
            .failure()
            .code(1)
    };
    resume(&["leduc"]).stderr(contains("written for another game"));
    resume(&["kuhn", "--algo", "dcfr"]).stderr(contains("is a cfr+ run"));
    resume(&["kuhn", "--updates", "simultaneous"]).stderr(contains("was run with"));
    resume(&["kuhn", "--check-every", "5"]).stderr(contains("--check-every 1000"));
    // Fewer total iterations than the checkpoint holds.
    bluff()
        .args(["solve", "--iterations", "5", "--resume"])
        .arg(&ckpt)
        .assert()
        .failure()
        .stderr(contains("already has 10 iterations"));
}

#[test]
fn truncated_or_corrupted_checkpoints_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("k.ckpt");
    solve(&["kuhn", "--iterations", "10"], &[("--checkpoint", &ckpt)]);
    let bytes = std::fs::read(&ckpt).unwrap();
    let bad = dir.path().join("bad.ckpt");
    let cases: [(Vec<u8>, &str); 4] = [
        (bytes[..bytes.len() / 2].to_vec(), "truncated"),
        (
            {
                let mut b = bytes.clone();
                b[bytes.len() / 2] ^= 1;
                b
            },
            "corrupted",
        ),
        (b"not a checkpoint".to_vec(), "not a bluff checkpoint"),
        (Vec::new(), "not a bluff checkpoint"),
    ];
    for (content, message) in cases {
        std::fs::write(&bad, content).unwrap();
        bluff()
            .args(["solve", "--iterations", "20", "--resume"])
            .arg(&bad)
            .assert()
            .failure()
            .code(1)
            .stderr(contains(message));
    }
}

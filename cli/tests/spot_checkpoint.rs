//! Checkpoints of hold'em spot runs (`bluff solve SPOT.toml --checkpoint FILE`, `--resume
//! FILE`): a run stopped and resumed, by an iteration limit or by a signal, writes the same
//! strategy file, byte for byte, as the run that was never stopped; checkpoints of another
//! spot, algorithm, parameters or precision, and damaged ones, are refused with nothing
//! written.

mod common;

use common::cli::{assert_refused, bluff, solve_json};
use common::data;
use std::path::Path;

fn turn() -> String {
    data("spots/turn_reduced.toml")
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

/// A run of 30 iterations and one stopped at 12 and resumed (twice, on another thread count)
/// write the same strategy file, for the default algorithm in f32, a predictive one (which
/// keeps its last regrets) in f64 and simultaneous updates.
#[test]
fn a_resumed_spot_run_ends_with_the_same_bits() {
    for extra in [
        vec![],
        vec!["--algo", "pcfr+", "--precision", "f64"],
        vec!["--algo", "cfr+", "--updates", "simultaneous"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (whole, part, ck) = (
            path(dir.path(), "whole.spt"),
            path(dir.path(), "part.spt"),
            path(dir.path(), "run.ckpt"),
        );
        let spot = turn();
        let mut args = vec![spot.as_str(), "--iterations", "30", "-o", &whole];
        args.extend(&extra);
        let a = solve_json(&args);
        let mut args = vec![spot.as_str(), "--iterations", "12", "--checkpoint", &ck];
        args.extend(&extra);
        let first = solve_json(&args);
        assert_eq!(first["checkpoint"]["path"], ck.as_str());
        // Resumed with the checkpoint's algorithm and precision (not repeated), on 2 threads,
        // then again to the total.
        let mut args = vec![spot.as_str(), "--iterations", "20", "--resume", &ck];
        args.extend(["--checkpoint", &ck, "--threads", "2"]);
        args.extend(
            extra
                .iter()
                .filter(|a| a.starts_with("--updates") || **a == "simultaneous"),
        );
        let second = solve_json(&args);
        assert_eq!(second["resumed_at"], 12, "{extra:?}");
        let mut args = vec![
            spot.as_str(),
            "--iterations",
            "30",
            "--resume",
            &ck,
            "-o",
            &part,
        ];
        args.extend(
            extra
                .iter()
                .filter(|a| a.starts_with("--updates") || **a == "simultaneous"),
        );
        let b = solve_json(&args);
        assert_eq!(b["resumed_at"], 20);
        assert_eq!(a["iterations"], b["iterations"]);
        assert_eq!(a["exploitability"], b["exploitability"], "{extra:?}");
        assert_eq!(a["algo"], b["algo"]);
        assert_eq!(a["precision"], b["precision"]);
        let (x, y) = (
            std::fs::read(&whole).unwrap(),
            std::fs::read(&part).unwrap(),
        );
        assert!(x == y, "{extra:?}: the strategy files differ");
    }
}

/// A checkpoint resumed on another spot, algorithm, parameters or precision, past its total,
/// or damaged, is refused by name; nothing is written.
#[test]
fn a_checkpoint_of_another_run_or_a_damaged_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ck = path(dir.path(), "run.ckpt");
    let spot = turn();
    solve_json(&[&spot, "--iterations", "10", "--checkpoint", &ck]);
    let out_file = path(dir.path(), "never.spt");
    let river = data("spots/river.toml");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![&river, "--iterations", "20", "--resume", &ck],
            "the checkpoint was written for another spot (board",
        ),
        (
            vec![
                &spot,
                "--iterations",
                "20",
                "--resume",
                &ck,
                "--algo",
                "cfr+",
            ],
            "the checkpoint is a dcfr+ run; it cannot continue as cfr+",
        ),
        (
            vec![
                &spot,
                "--iterations",
                "20",
                "--resume",
                &ck,
                "--updates",
                "simultaneous",
            ],
            "the checkpoint was run with RegretParams",
        ),
        (
            vec![
                &spot,
                "--iterations",
                "20",
                "--resume",
                &ck,
                "--precision",
                "f64",
            ],
            "the checkpoint's state is stored in f32; it cannot continue in f64",
        ),
        (
            vec![&spot, "--iterations", "5", "--resume", &ck],
            "--iterations 5: the checkpoint already has 10 iterations",
        ),
        (
            vec!["--iterations", "20", "--resume", &ck],
            "a hold'em spot's checkpoint: give the spot file too",
        ),
    ];
    for (args, needle) in cases {
        let out = bluff()
            .arg("solve")
            .args(&args)
            .args(["-o", &out_file])
            .output()
            .unwrap();
        assert_refused(&out, &format!("{args:?}"), needle);
        assert!(!Path::new(&out_file).exists(), "{args:?} wrote its output");
    }
    let good = std::fs::read(&ck).unwrap();
    let damaged = path(dir.path(), "damaged.ckpt");
    let mut flipped = good.clone();
    let at = good.len() - 100;
    flipped[at] ^= 0x40;
    for (bytes, needle) in [
        (good[..good.len() - 9].to_vec(), "the file has"),
        (good[..40].to_vec(), "a header of"),
        (flipped, "corrupted spot checkpoint: checksum"),
        (
            b"BLUFFSPC\x07\0\0\0".to_vec(),
            "spot checkpoint format version 7",
        ),
        // Version 1 stored hand-major entries, version 2 a river node's hands in hand order,
        // version 3 the nodes' blocks breadth first: refused, never read as this version's
        // layout.
        (
            [&b"BLUFFSPC\x01\0\0\0"[..], &good[12..]].concat(),
            "spot checkpoint format version 1; this bluff reads version 4",
        ),
        (
            [&b"BLUFFSPC\x02\0\0\0"[..], &good[12..]].concat(),
            "spot checkpoint format version 2; this bluff reads version 4",
        ),
        (
            [&b"BLUFFSPC\x03\0\0\0"[..], &good[12..]].concat(),
            "spot checkpoint format version 3; this bluff reads version 4",
        ),
    ] {
        std::fs::write(&damaged, &bytes).unwrap();
        let out = bluff()
            .args(["solve", &spot, "--iterations", "20", "--resume", &damaged])
            .args(["-o", &out_file])
            .output()
            .unwrap();
        assert_refused(&out, needle, needle);
        assert!(!Path::new(&out_file).exists());
    }
}

/// SIGINT saves the checkpoint and the strategy and exits 130; the saved run continues to the
/// same bits as a run never stopped.
#[cfg(unix)]
#[test]
fn a_signal_saves_a_spot_run_which_then_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (ck, part, whole) = (
        path(dir.path(), "run.ckpt"),
        path(dir.path(), "part.spt"),
        path(dir.path(), "whole.spt"),
    );
    let spot = turn();
    let bin = assert_cmd::cargo::cargo_bin("bluff");
    let mut cmd = std::process::Command::new(&bin);
    common::cli::stop_signals(&mut cmd, common::cli::StopSignals::Default);
    let child = cmd
        .args([
            "solve",
            &spot,
            "--iterations",
            "100000000",
            "--check-every",
            "5",
        ])
        .args([
            "--checkpoint",
            &ck,
            "--checkpoint-every",
            "0.05",
            "-o",
            &part,
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !Path::new(&ck).exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no checkpoint written"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    let out = common::cli::signal_and_wait(child, "-INT");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");
    assert!(stderr.contains("saved checkpoint"), "{stderr}");
    assert!(Path::new(&part).exists());
    // The checkpoint's iterations, from a resume that adds none.
    let v = solve_json(&[
        &spot,
        "--iterations",
        "100000000",
        "--resume",
        &ck,
        "--time",
        "0.000001",
    ]);
    let done = v["resumed_at"].as_u64().unwrap();
    assert!(done >= 5 && done.is_multiple_of(5), "{v}");
    let n = (done + 7).to_string();
    solve_json(&[&spot, "--iterations", &n, "--resume", &ck, "-o", &part]);
    solve_json(&[&spot, "--iterations", &n, "-o", &whole]);
    assert!(std::fs::read(&part).unwrap() == std::fs::read(&whole).unwrap());
}

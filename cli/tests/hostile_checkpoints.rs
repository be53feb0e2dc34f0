//! `bluff solve --resume` against hostile checkpoints: a file of the wrong kind or size is
//! refused before its payload is read into memory, and a payload forged with a valid checksum
//! (a faulty or hostile writer) is checked field by field, never trusted into a panic or a
//! wrong run.

mod common;

use bluff::cfr::checkpoint::{decode, encode, Checkpoint};
use common::cli::{assert_refused, bluff, stderr_of};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A real checkpoint of 7 CFR+ iterations on Kuhn, in `dir`.
fn real_checkpoint(dir: &Path) -> PathBuf {
    let path = dir.join("run.ckpt");
    let out = bluff()
        .args([
            "solve",
            "kuhn",
            "--algo",
            "cfr+",
            "--iterations",
            "7",
            "--checkpoint",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    path
}

/// Resumes from `path` to 20 iterations; asserts exit 1 with `needle` in the message.
fn refused(path: &Path, needle: &str) {
    let start = Instant::now();
    let out = bluff()
        .args(["solve", "--iterations", "20", "--resume"])
        .arg(path)
        .output()
        .unwrap();
    assert_refused(&out, &path.display().to_string(), needle);
    assert!(start.elapsed() < Duration::from_secs(30));
}

/// A checkpoint whose payload was changed by `forge` and re-framed with a valid checksum.
fn forged(dir: &Path, forge: impl FnOnce(&mut Checkpoint)) -> PathBuf {
    let real = real_checkpoint(dir);
    let mut c = decode(&std::fs::read(&real).unwrap()).unwrap();
    forge(&mut c);
    let path = dir.join("forged.ckpt");
    std::fs::write(&path, encode(&c)).unwrap();
    path
}

#[cfg(unix)]
#[test]
fn dev_zero_is_not_read_forever() {
    refused(Path::new("/dev/zero"), "not a bluff checkpoint");
}

#[test]
fn a_missing_file_or_a_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    refused(&dir.path().join("nothing.ckpt"), "nothing.ckpt");
    refused(dir.path(), "checkpoint");
}

#[test]
fn an_empty_file_is_not_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.ckpt");
    std::fs::write(&path, b"").unwrap();
    refused(&path, "not a bluff checkpoint");
}

#[test]
fn a_header_announcing_an_exabyte_is_refused_before_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let real = std::fs::read(real_checkpoint(dir.path())).unwrap();
    let mut bytes = real.clone();
    bytes[12..20].copy_from_slice(&(1u64 << 60).to_le_bytes());
    let path = dir.path().join("huge.ckpt");
    std::fs::write(&path, &bytes).unwrap();
    refused(&path, "truncated");
}

#[test]
fn bytes_appended_to_a_checkpoint_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = real_checkpoint(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"more");
    std::fs::write(&path, &bytes).unwrap();
    refused(&path, "the header says");
}

#[test]
fn a_future_format_version_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = real_checkpoint(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8..12].copy_from_slice(&99u32.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    refused(&path, "format version 99");
}

#[test]
fn a_forged_unknown_algorithm_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = forged(dir.path(), |c| c.algo = "\u{1b}[31mmagic-cfr".into());
    refused(&path, "unknown algorithm \"\\u{1b}[31mmagic-cfr\"");
}

#[test]
fn forged_non_finite_or_negative_state_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = forged(dir.path(), |c| c.state.arrays[0].1[0] = f64::NAN);
    refused(&path, "non-finite");
    let path = forged(dir.path(), |c| {
        let sums = c
            .state
            .arrays
            .iter_mut()
            .find(|(n, _)| n == "strategy_sum0")
            .unwrap();
        sums.1[0] = -1.0;
    });
    refused(&path, "negative value");
}

#[test]
fn a_forged_current_strategy_that_is_no_distribution_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = forged(dir.path(), |c| {
        let cur = c
            .state
            .arrays
            .iter_mut()
            .find(|(n, _)| n == "current1")
            .unwrap();
        cur.1[0] = 0.75;
        cur.1[1] = 0.75;
    });
    refused(&path, "current strategy at information set");
}

#[test]
fn forged_arrays_of_the_wrong_length_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = forged(dir.path(), |c| c.state.arrays[2].1.push(0.0));
    refused(&path, "values; expected");
    let path = forged(dir.path(), |c| {
        c.state.arrays.pop();
    });
    refused(&path, "arrays, expected");
}

#[test]
fn a_forged_iteration_count_beyond_the_goal_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = forged(dir.path(), |c| c.state.iterations = u64::MAX);
    refused(&path, "already has");
}

#[test]
fn a_checkpoint_of_another_game_is_refused_by_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let path = forged(dir.path(), |c| c.game_spec = "leduc".into());
    refused(&path, "written for another game");
}

#[cfg(unix)]
#[test]
fn a_checkpoint_arriving_through_a_pipe_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let path = real_checkpoint(dir.path());
    let piped = bluff()
        .args([
            "solve",
            "--iterations",
            "20",
            "--resume",
            "/dev/stdin",
            "-o",
            "-",
        ])
        .pipe_stdin(&path)
        .unwrap()
        .output()
        .unwrap();
    assert!(piped.status.success(), "{}", stderr_of(&piped));
    let direct = bluff()
        .args(["solve", "--iterations", "20", "-o", "-", "--resume"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(direct.status.success(), "{}", stderr_of(&direct));
    assert_eq!(piped.stdout, direct.stdout);
}

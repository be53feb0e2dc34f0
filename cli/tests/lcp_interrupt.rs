//! SIGINT and SIGTERM stop a long LCP run between pivots: exit 130 / 143, "interrupted by"
//! on stderr, and nothing written (`-o` names a file that must not appear).

mod common;

#[cfg(unix)]
#[test]
fn a_signal_stops_the_lcp_cleanly_with_nothing_written() {
    for (signal, status, name) in [("-INT", 130, "SIGINT"), ("-TERM", 143, "SIGTERM")] {
        let dir = tempfile::tempdir().unwrap();
        let out_path = dir.path().join("eq.json");
        let bin = assert_cmd::cargo::cargo_bin("bluff");
        let mut cmd = std::process::Command::new(&bin);
        common::cli::stop_signals(&mut cmd, common::cli::StopSignals::Default);
        // The exact tableau on 966 rows takes minutes: the signal lands mid-path.
        let child = cmd
            .args([
                "solve",
                "one-card-poker(n=30,a=2,b=1,rake=0.05)",
                "--algo",
                "lcp",
                "--lp-method",
                "tableau",
                "-o",
            ])
            .arg(&out_path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_secs(2));
        let out = common::cli::signal_and_wait(child, signal);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{stderr}");
        assert!(
            stderr.contains(&format!("interrupted by {name} after")),
            "{stderr}"
        );
        assert!(stderr.contains("Lemke pivots"), "{stderr}");
        assert!(stderr.contains("nothing was written"), "{stderr}");
        assert!(
            !out_path.exists(),
            "{} written on {name}",
            out_path.display()
        );
    }
}

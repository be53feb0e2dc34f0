//! Times microlp (pure-Rust float simplex) on MPS files written by `bluff solve --write-mps`.
//! Usage: microlp-bench FILE.mps... ; prints one JSON object per file.
use std::io::BufRead;
use std::time::Instant;

fn main() {
    for path in std::env::args().skip(1) {
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        // microlp's reader has no OBJSENSE section: drop it and pass the direction.
        let text: String = std::io::BufReader::new(file)
            .lines()
            .map(|l| l.expect("readable line"))
            .filter(|l| l.trim() != "OBJSENSE" && l.trim() != "MAX")
            .map(|l| l + "\n")
            .collect();
        let mps = microlp::MpsFile::parse(text.as_bytes(), microlp::OptimizationDirection::Maximize)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let t = Instant::now();
        let result = mps.problem.solve();
        let secs = t.elapsed().as_secs_f64();
        match result {
            Ok(s) => println!(
                "{{\"file\": \"{path}\", \"seconds\": {secs}, \"objective\": {}}}",
                s.objective()
            ),
            Err(e) => println!(
                "{{\"file\": \"{path}\", \"seconds\": {secs}, \"error\": \"{e}\"}}"
            ),
        }
    }
}

//! A stream-style memory bandwidth loop for `bench/cfr_kernels.sh`: copy (`a = b`, 16 bytes
//! moved per element) and triad (`a = b + s c`, 24 bytes) over arrays far beyond the
//! last-level cache, on one or more threads (each thread its own contiguous part), best of
//! five passes; prints one JSON line with the bandwidths in GB/s (1e9 bytes per second).
//!
//! Usage: `stream <threads> [elements per array, default 2^25 = 256 MiB]`.

use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let threads: usize = args.first().map(|s| s.parse()).transpose()?.unwrap_or(1);
    let n: usize = args
        .get(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1 << 25);
    let mut a = vec![0.0f64; n];
    let b: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let c: Vec<f64> = (0..n).map(|i| (n - i) as f64).collect();
    let chunk = n.div_ceil(threads.max(1));
    let mut best = [f64::INFINITY; 2];
    for _ in 0..5 {
        for (kind, best) in best.iter_mut().enumerate() {
            let start = Instant::now();
            std::thread::scope(|s| {
                for ((a, b), c) in a
                    .chunks_mut(chunk)
                    .zip(b.chunks(chunk))
                    .zip(c.chunks(chunk))
                {
                    s.spawn(move || {
                        if kind == 0 {
                            a.copy_from_slice(b);
                        } else {
                            for ((x, &y), &z) in a.iter_mut().zip(b).zip(c) {
                                *x = y + 3.0 * z;
                            }
                        }
                    });
                }
            });
            *best = best.min(start.elapsed().as_secs_f64());
        }
    }
    // Keep the arrays alive and read.
    let check: f64 = a.iter().step_by(4096).sum();
    println!(
        "{}",
        serde_json::json!({
            "threads": threads, "elements": n,
            "copy_gbs": 16.0 * n as f64 / best[0] / 1e9,
            "triad_gbs": 24.0 * n as f64 / best[1] / 1e9,
            "check": check,
        })
    );
    Ok(())
}

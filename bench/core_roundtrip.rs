//! Core-to-core round trip of one cache line between two threads (bench/cfr_threads.sh
//! prints it beside each 2-thread run). On the shared 2-vCPU virtual machine the hypervisor
//! moves the vCPUs between host cores: about 65 ns when both sit on one last-level cache,
//! 300-350 ns when they sit on separate ones, and then every line one thread writes and the
//! other reads costs that much, which decides the speed-up of the threaded CFR passes.
//! Build: `rustc -O bench/core_roundtrip.rs -o target/core_roundtrip`; prints nanoseconds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Spins until `line` holds `want`, yielding now and then: under `chrt -f` two such programs
/// at once would otherwise each wait forever for a partner that cannot get a core.
fn wait(line: &AtomicU64, want: u64) {
    let mut spins = 0u32;
    while line.load(Ordering::Acquire) != want {
        spins += 1;
        if spins.is_multiple_of(1 << 16) {
            std::thread::yield_now();
        }
        std::hint::spin_loop();
    }
}

fn main() {
    let line = Arc::new(AtomicU64::new(0));
    let other = Arc::clone(&line);
    let n = 100_000u64;
    let echo = std::thread::spawn(move || {
        for i in 0..n {
            wait(&other, 2 * i + 1);
            other.store(2 * i + 2, Ordering::Release);
        }
    });
    let start = Instant::now();
    for i in 0..n {
        line.store(2 * i + 1, Ordering::Release);
        wait(&line, 2 * i + 2);
    }
    let took = start.elapsed();
    echo.join().expect("echo thread");
    println!("{:.0}", took.as_nanos() as f64 / n as f64);
}

//! The LP's memory estimate (checked against `--max-memory` before anything is built) bounds
//! what building and solving really allocate: a counting allocator measures the peak heap
//! growth of `solve_exact_with`, the LP build included, on several games and both players'
//! programs.

use bluff::exact::sequence_form::{memory_estimate, LpPrimal};
use bluff::exact::{solve_exact_with, ExactOptions};
use bluff::lp::{Method, SolveOptions};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grow(new_size);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Peak heap growth of solving `primal`'s program of `spec` exactly (the game already built),
/// and the estimate.
fn measured_and_estimated(spec: &str, method: Method, primal: LpPrimal) -> (usize, u128) {
    let game = bluff::games::load(spec).unwrap().game;
    let (_, _, estimate) = memory_estimate(&game, method, primal.player(&game));
    let start = LIVE.load(Ordering::Relaxed);
    PEAK.store(start, Ordering::Relaxed);
    let options = ExactOptions {
        lp: SolveOptions::new(method),
        primal,
        ..Default::default()
    };
    let solution = solve_exact_with(&game, &options).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - start;
    drop(solution);
    (peak, estimate)
}

#[test]
fn estimate_bounds_the_measured_peak_of_build_and_solve() {
    // One test function: the counters are process-wide, so no other test may run beside it.
    for (spec, method) in [
        ("kuhn", Method::ExactTableau),
        ("kuhn", Method::FloatThenExact),
        ("one-card-poker(n=5,a=2,b=1)", Method::ExactTableau),
        ("one-card-poker(n=50,a=2,b=1)", Method::FloatThenExact),
        ("leduc", Method::FloatThenExact),
        ("liars-dice(dice=1,sides=4)", Method::FloatThenExact),
        ("shrek-donkey(m=1,n=3)", Method::FloatThenExact),
        (
            "goofspiel(cards=4,order=descending)",
            Method::FloatThenExact,
        ),
    ] {
        for primal in [LpPrimal::First, LpPrimal::Second] {
            let (peak, estimate) = measured_and_estimated(spec, method, primal);
            eprintln!("{spec} {method:?} {primal:?}: peak {peak} bytes, estimate {estimate} bytes");
            assert!(
                peak as u128 <= estimate,
                "{spec} {method:?} {primal:?}: measured peak {peak} bytes above the estimate {estimate}"
            );
        }
    }
}

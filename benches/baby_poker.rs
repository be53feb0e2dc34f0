//! Baby poker: the exact routes to the value side by side (normal-form LP over 64x64 against
//! the behavioural LPs and the sequence-form LP), plus the normal-form build and the exact
//! description of B's optimal sets. Run: `cargo bench --bench baby_poker`.

use bluff::exact::solve_exact;
use bluff::matrix::normal_form::{reduced_normal_form, DEFAULT_MAX_STRATEGIES};
use bluff::problems::baby_poker::{b_optimal_polytope, baby_poker, behavioural_lp, pure_matrix};
use bluff::scalar::rat;
use criterion::{criterion_group, criterion_main, Criterion};
use std::time::Duration;

fn value_routes(c: &mut Criterion) {
    let game = baby_poker(6, 2).unwrap();
    let matrix = pure_matrix(6, 2);
    let mut g = c.benchmark_group("baby_poker_value");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("normal_form_lp_64x64", |b| {
        b.iter(|| matrix.solve().unwrap())
    });
    g.bench_function("behavioural_lps", |b| {
        b.iter(|| behavioural_lp(6, 2).unwrap())
    });
    g.bench_function("sequence_form_lp", |b| {
        b.iter(|| solve_exact(&game).unwrap())
    });
    g.finish();
}

fn structures(c: &mut Criterion) {
    let game = baby_poker(6, 2).unwrap();
    let matrix = pure_matrix(6, 2);
    let solution = matrix.solve().unwrap();
    let mut g = c.benchmark_group("baby_poker_sets");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("reduced_normal_form", |b| {
        b.iter(|| reduced_normal_form(&game, DEFAULT_MAX_STRATEGIES).unwrap())
    });
    g.bench_function("b_behavioural_set", |b| {
        b.iter(|| b_optimal_polytope(6, 2, &rat(5, 54)).describe().unwrap())
    });
    g.bench_function("b_mixed_set_23_vertices", |b| {
        b.iter(|| matrix.optimal_set(&solution, 1).unwrap())
    });
    g.finish();
}

criterion_group!(benches, value_routes, structures);
criterion_main!(benches);

//! Speed of the .efg writer, reader and conversion to a `Game` on a synthetic perfect-information
//! tree (alternating players, chance at the root), large enough that per-file overhead vanishes.

use bluff::format::efg::{efg_to_game, game_to_efg, load_efg, read_efg, write_efg};
use bluff::game::{Game, GameBuilder, NodeRef};
use bluff::scalar::rat;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// A complete binary tree of the given depth below a 3-way chance root; every decision node is
/// its own information set (labelled by its history), leaves pay a history-dependent fraction.
fn synthetic(depth: usize) -> Game {
    let mut b = GameBuilder::new("synthetic", "P1", "P2");
    let root = b.root();
    let deals = b.chance_uniform(root, vec!["a", "b", "c"]).unwrap();
    let mut frontier: Vec<(NodeRef, String)> = deals
        .into_iter()
        .zip(["a", "b", "c"])
        .map(|(n, l)| (n, l.to_string()))
        .collect();
    for d in 0..depth {
        let mut next = Vec::with_capacity(frontier.len() * 2);
        for (node, hist) in frontier {
            let kids = b.decision(node, d % 2, &hist, &["L", "R"]).unwrap();
            next.push((kids[0], format!("{hist}L")));
            next.push((kids[1], format!("{hist}R")));
        }
        frontier = next;
    }
    for (i, (node, _)) in frontier.into_iter().enumerate() {
        b.terminal_zero_sum(node, rat(i as i64 % 7 - 3, 1 + i as i64 % 5))
            .unwrap();
    }
    b.build().unwrap()
}

fn bench(c: &mut Criterion) {
    let game = synthetic(14);
    let efg = game_to_efg(&game);
    let text = write_efg(&efg).unwrap();
    eprintln!(
        "synthetic game: {} nodes, {} information sets, {} bytes of .efg",
        game.nodes.len(),
        game.num_infosets(),
        text.len()
    );
    let mut g = c.benchmark_group("efg");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("write", |b| {
        b.iter(|| write_efg(&game_to_efg(&game)).unwrap())
    });
    g.bench_function("read", |b| b.iter(|| read_efg(&text).unwrap()));
    g.bench_function("read+to_game", |b| {
        b.iter(|| efg_to_game(&read_efg(&text).unwrap().game).unwrap())
    });
    g.bench_function("load (streaming, to game)", |b| {
        b.iter(|| load_efg(text.as_bytes(), |_| {}).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

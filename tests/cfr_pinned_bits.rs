//! The CFR kernels reproduce, bit for bit, the states the span-based kernels of commit
//! 7e44a62 computed: a hash of every solver array's bits after a fixed number of iterations,
//! for every variant on five games, at 1 and 2 threads. The constants were printed by that
//! commit's code (`PIN_PRINT=1 cargo test --release --test cfr_pinned_bits -- --nocapture`),
//! so any later kernel (fused passes, other layouts, other thread splits) must give the same
//! floating-point operations in the same order.

use bluff::cfr::{CfrSolver, Pacing, RegretParams};
use bluff::games::load;

mod common;
use common::cfr_variants;

/// Every variant, DCFR+ as it was pinned: before it took its authors' discount offset 1.5.
/// The kernels must still reproduce the offset-1 bits (the offset changes a factor, not the
/// operations).
fn variants(horizon: u64) -> Vec<(&'static str, RegretParams)> {
    cfr_variants::variants(horizon)
        .into_iter()
        .map(|(name, params)| match name {
            "dcfr+" => (
                "dcfr+ (offset 1)",
                RegretParams {
                    discount_offset: 1.0,
                    ..params
                },
            ),
            _ => (name, params),
        })
        .collect()
}

/// FNV-1a over the bits of every state array, in order.
fn state_hash(solver: &CfrSolver) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (_, values) in solver.state().arrays {
        for x in values {
            for byte in x.to_bits().to_le_bytes() {
                h ^= byte as u64;
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    h
}

fn games() -> Vec<(String, u64)> {
    vec![
        ("kuhn".to_string(), 300),
        ("leduc".to_string(), 40),
        ("liars-dice(sides=5)".to_string(), 12),
        ("goofspiel(cards=4,order=descending)".to_string(), 40),
        (
            format!("{}/tests/data/prob0_chance.efg", env!("CARGO_MANIFEST_DIR")),
            30,
        ),
    ]
}

/// Hashes by game then variant, as printed by the pinned commit.
const PINNED: &[&[u64]] = &[
    &[
        0x43fd23c2bc43e998,
        0xe6e61fbdc287805e,
        0x6eeb53c519ee282b,
        0xa49231673de89e3f,
        0x627978d303946139,
        0x0f201d2e0c718b59,
        0x5c88c03b42408685,
        0x6275778b318a91c4,
        0x807b4cec30d8fe9a,
        0xe34dc724ba51397d,
    ],
    &[
        0xe5278d6e858c3cd9,
        0xee85aa92fbee296d,
        0x4742e05f441d4581,
        0x582624458df402c9,
        0x26d5292d9f341e31,
        0xc0e89ba79ab7f4a5,
        0x0f8904d523e37ce1,
        0x481f3f1ca818e929,
        0x3cf1c1d4437a9e4d,
        0x9b34a2685879756d,
    ],
    &[
        0x25bb0d3e3f34e371,
        0xc572c1be23e2682f,
        0x066429ff660bfdcb,
        0x8181e9070efcd8d5,
        0xb820df63bc061537,
        0xdb0190c7e8a33087,
        0xd2583e6d32fd32ff,
        0x24f5d8a26e301868,
        0x5d56a1031c6a3fb0,
        0x404ce32f785b77ae,
    ],
    &[
        0xe60804d8d1d575c8,
        0xba1bd73ac67000d1,
        0x3839bd5ccb65ed79,
        0x24d508c6a60d7808,
        0xc484a3b62b74bf56,
        0x17025a5789c2940e,
        0x6c9035fa45d8804c,
        0xf12a1fd8ff6163c6,
        0x1d3d2cfa0c7c9348,
        0x2c76616277ed4184,
    ],
    &[
        0xe47e15de4857d9f2,
        0x762a80d478e94a1b,
        0xa81f6e2c354e51e6,
        0x62ec13664f4f5a09,
        0x0bcee6ba6ee4f87e,
        0x3eb3e2fb2be5348e,
        0x3da4c2af3f3f766a,
        0x162cf46f04d1356f,
        0x3d694720dbf51077,
        0xa58de1668286a271,
    ],
];

#[test]
fn kernels_reproduce_the_pinned_bits() {
    let print = std::env::var("PIN_PRINT").is_ok();
    for (g, (spec, iterations)) in games().into_iter().enumerate() {
        let game = load(&spec).unwrap().game;
        let mut row = Vec::new();
        for (v, (name, params)) in variants(iterations).into_iter().enumerate() {
            let mut hashes = Vec::new();
            for threads in [1, 2] {
                let mut solver = CfrSolver::new(&game, params)
                    .with_pacing(Pacing::Team)
                    .with_threads(threads)
                    .unwrap();
                solver.iterate(iterations);
                hashes.push(state_hash(&solver));
            }
            assert_eq!(hashes[0], hashes[1], "{spec} {name}: 1 vs 2 threads");
            row.push(hashes[0]);
            if !print {
                assert_eq!(hashes[0], PINNED[g][v], "{spec} {name}: bits changed");
            }
        }
        if print {
            let items: Vec<String> = row.iter().map(|h| format!("{h:#018x}")).collect();
            println!("    &[{}],", items.join(", "));
        }
    }
}

//! Fingerprints of every built-in game stated by rules, taken before the rules existed: the
//! whole compiled arena (its `Debug` form: nodes, interned tables, labels, terminals, sets)
//! and its `.efg` export, hashed with FNV-1a. Compiling a game from its rules must give the
//! same arena and the same file, byte for byte.

use bluff::cfr::checkpoint::Fnv;
use bluff::format::efg::{game_to_efg, write_efg};
use std::fmt::Write;

struct Hashing(Fnv);

impl Write for Hashing {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

fn fingerprints(spec: &str) -> (u64, u64) {
    let game = bluff::games::builtin(spec).unwrap();
    let mut h = Hashing(Fnv::default());
    write!(h, "{game:?}").unwrap();
    let mut e = Fnv::default();
    e.write(write_efg(&game_to_efg(&game)).unwrap().as_bytes());
    (h.0.finish(), e.finish())
}

/// (spec, hash of the arena's Debug text, hash of the .efg text), recorded on main at
/// 201cf3e before the games were restated as rules.
const PINNED: &[(&str, u64, u64)] = &[
    ("kuhn", 0xf04a491de6df122c, 0x341023dd83722007),
    ("leduc", 0x321b6e352d5ea88e, 0xd23781525cd4099d),
    (
        "liars-dice(dice=1,sides=2)",
        0xe2424365895b2110,
        0x7af7eae5b2ce9f96,
    ),
    (
        "liars-dice(dice=1,sides=3)",
        0xfc41d9f8bd6f22c5,
        0x6f6bf90bbe662db3,
    ),
    (
        "liars-dice(dice=1,sides=4)",
        0x633993ca1d99b5b6,
        0x149df29aa75dc598,
    ),
    (
        "liars-dice(dice=2,sides=2)",
        0x13f0d51158ce2d41,
        0xd21cbde9321a3c71,
    ),
    (
        "liars-dice(dice=2,sides=3)",
        0x5828b6776962936f,
        0x49b255ebcb8a38a3,
    ),
    (
        "liars-dice(dice=1,sides=5)",
        0x8295703bd982f671,
        0xe3411c57dfc34fd2,
    ),
    (
        "liars-dice(dice=1,sides=6)",
        0x16c307f784c9b79a,
        0x742f62444aeb2776,
    ),
    (
        "goofspiel(cards=2,order=descending,returns=point-difference)",
        0xa758a67922555ce8,
        0x5b1b1cdffdb82c0a,
    ),
    (
        "goofspiel(cards=3,order=random)",
        0x638fdac01d5c3db5,
        0xd221a71590e44d64,
    ),
    (
        "goofspiel(cards=3,order=ascending)",
        0xbfb73bbde2de948b,
        0xb2eb9e31808c5e59,
    ),
    (
        "goofspiel(cards=4,order=random,returns=point-difference)",
        0x5eaa39913dc9909d,
        0x1546a5409d2faa52,
    ),
    (
        "goofspiel(cards=4,order=descending)",
        0xc812d8c7fafbd012,
        0xdd652b09f466066f,
    ),
    (
        "goofspiel(cards=5,order=descending)",
        0x4eadbc7484362307,
        0x076efc444fa9b4ac,
    ),
];

#[test]
#[ignore]
fn print_fingerprints() {
    for spec in SPECS.iter().chain(&["goofspiel(cards=5)"]) {
        let (a, e) = fingerprints(spec);
        println!("    (\"{spec}\", 0x{a:016x}, 0x{e:016x}),");
    }
}

const SPECS: &[&str] = &[
    "kuhn",
    "leduc",
    "liars-dice(dice=1,sides=2)",
    "liars-dice(dice=1,sides=3)",
    "liars-dice(dice=1,sides=4)",
    "liars-dice(dice=2,sides=2)",
    "liars-dice(dice=2,sides=3)",
    "liars-dice(dice=1,sides=5)",
    "liars-dice(dice=1,sides=6)",
    "goofspiel(cards=2,order=descending,returns=point-difference)",
    "goofspiel(cards=3,order=random)",
    "goofspiel(cards=3,order=ascending)",
    "goofspiel(cards=4,order=random,returns=point-difference)",
    "goofspiel(cards=4,order=descending)",
    "goofspiel(cards=5,order=descending)",
];

#[test]
fn compiled_rules_give_the_pinned_games() {
    for &(spec, arena, efg) in PINNED {
        assert_eq!(fingerprints(spec), (arena, efg), "{spec}");
    }
}

/// Goofspiel 5 in random order (3.3 million nodes, some 20 s): `--ignored`.
#[test]
#[ignore]
fn compiled_goofspiel_5_random_is_the_pinned_game() {
    assert_eq!(fingerprints("goofspiel(cards=5)"), GOOFSPIEL_5_RANDOM);
}

/// Recorded like [`PINNED`].
const GOOFSPIEL_5_RANDOM: (u64, u64) = (0x39830adbce6cf362, 0xcdada942b4b853b6);

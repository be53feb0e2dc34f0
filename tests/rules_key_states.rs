//! `Rules::key_state`: every built-in game's rules give, for every information-set key, a state
//! of that set (its key, label and action labels, checked by `check_rules` against the states a
//! walk of the game meets), and no state for a key that names no set (nor a panic).

use bluff::game::rules::{check_rules, count_histories, histories_and_keys};
use bluff::game::Rules;
use bluff::games::{self, WithRules};

const SPECS: &[&str] = &[
    "kuhn",
    "leduc",
    "liars-dice(dice=1,sides=4)",
    "liars-dice(dice=2,sides=2)",
    "goofspiel(cards=4,order=random)",
    "goofspiel(cards=4,order=descending)",
    "goofspiel(cards=4,order=ascending)",
    "goofspiel(cards=3,order=random,returns=point-difference)",
];

/// The checks on one game's rules; returns how many keys it stated.
struct Check;

impl WithRules for Check {
    type Output = usize;
    fn run<G: Rules>(self, rules: &G) -> usize {
        let (nodes, sets) = check_rules(rules).unwrap();
        assert_eq!((nodes, sets), count_histories(rules), "{}", rules.name());
        let (_, all) = histories_and_keys(rules);
        let mut stated = 0;
        for (p, keys) in all.iter().enumerate() {
            for &key in keys {
                assert!(
                    rules.key_state(p, key).is_some(),
                    "{}: no state for player {p}'s key {key}",
                    rules.name()
                );
                stated += 1;
                // Keys near this one: a state only for keys that name a set.
                for bit in 0..64 {
                    let other = key ^ (1 << bit);
                    if rules.key_state(p, other).is_some() {
                        assert!(
                            keys.binary_search(&other).is_ok(),
                            "{}: key {other}",
                            rules.name()
                        );
                    }
                }
            }
        }
        // Arbitrary keys (a fixed xorshift sequence) never panic.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for (p, keys) in all.iter().enumerate() {
                if rules.key_state(p, x).is_some() {
                    assert!(keys.binary_search(&x).is_ok(), "{}: key {x}", rules.name());
                }
            }
        }
        stated
    }
}

#[test]
fn every_built_in_key_has_a_state_and_other_keys_have_none() {
    for spec in SPECS {
        let rules = games::rules(spec).unwrap().unwrap();
        let stated = rules.with(Check);
        let (_, sets) = rules.with(Counts);
        assert_eq!(stated, sets[0] + sets[1], "{spec}");
    }
}

/// The compiled arena states keys too (its dense set ids): the same checks.
#[test]
fn arena_keys_name_a_node_of_their_set() {
    for spec in ["kuhn", "leduc", "goofspiel(cards=3,order=random)"] {
        let game = games::builtin(spec).unwrap();
        let stated = Check.run(&game);
        assert_eq!(
            stated,
            game.infosets[0].len() + game.infosets[1].len(),
            "{spec}"
        );
    }
}

/// Histories and sets per player.
struct Counts;

impl WithRules for Counts {
    type Output = (u64, [usize; 2]);
    fn run<G: Rules>(self, rules: &G) -> (u64, [usize; 2]) {
        count_histories(rules)
    }
}

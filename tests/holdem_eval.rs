//! The hold'em evaluator against the textbook class counts (every 5-card and every 7-card
//! hand) and against phevaluator from PyPI on random 7-card hands
//! (tests/data/holdem_eval_phevaluator.txt, written by scripts/holdem_eval_data.py).

use bluff::holdem::cards::{parse_cards, Card};
use bluff::holdem::eval::{evaluate, evaluate_cards, evaluate_masks, suit_bit, HandClass};
use rayon::prelude::*;

/// Counts per class, in the order of `HandClass::ALL` (high card first).
fn counts5() -> [u64; 9] {
    let bits: Vec<u64> = (0..52).map(|c| suit_bit(Card(c))).collect();
    let mut n = [0u64; 9];
    for a in 0..52 {
        for b in a + 1..52 {
            let mb = bits[a] | bits[b];
            for c in b + 1..52 {
                let mc = mb | bits[c];
                for d in c + 1..52 {
                    let md = mc | bits[d];
                    for e in d + 1..52 {
                        n[evaluate_masks(md | bits[e]).class() as usize] += 1;
                    }
                }
            }
        }
    }
    n
}

#[test]
fn every_five_card_hand_gives_the_textbook_counts() {
    // Straight flush, quads, full house, flush, straight, trips, two pair, pair, high card.
    let textbook = [
        40, 624, 3_744, 5_108, 10_200, 54_912, 123_552, 1_098_240, 1_302_540,
    ];
    let mut n = counts5();
    n.reverse();
    assert_eq!(n, textbook);
    assert_eq!(n.iter().sum::<u64>(), 2_598_960);
}

#[test]
fn every_seven_card_hand_gives_the_textbook_counts() {
    let bits: Vec<u64> = (0..52).map(|c| suit_bit(Card(c))).collect();
    // The masks are built card by card down the loops; the first card splits the work.
    let n = (0..52usize)
        .into_par_iter()
        .map(|a| {
            let mut n = [0u64; 9];
            for b in a + 1..52 {
                let mb = bits[a] | bits[b];
                for c in b + 1..52 {
                    let mc = mb | bits[c];
                    for d in c + 1..52 {
                        let md = mc | bits[d];
                        for e in d + 1..52 {
                            let me = md | bits[e];
                            for f in e + 1..52 {
                                let mf = me | bits[f];
                                for g in f + 1..52 {
                                    n[evaluate_masks(mf | bits[g]).class() as usize] += 1;
                                }
                            }
                        }
                    }
                }
            }
            n
        })
        .reduce(|| [0u64; 9], |x, y| std::array::from_fn(|i| x[i] + y[i]));
    let mut n = n;
    n.reverse();
    let textbook = [
        41_584, 224_848, 3_473_184, 4_047_644, 6_180_020, 6_461_620, 31_433_400, 58_627_800,
        23_294_460,
    ];
    assert_eq!(n, textbook);
    assert_eq!(n.iter().sum::<u64>(), 133_784_560);
}

#[test]
fn random_hands_agree_with_phevaluator() {
    let text = include_str!("data/holdem_eval_phevaluator.txt");
    let mut hands = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let cards = parse_cards(f[0]).unwrap();
        assert_eq!(cards.len(), 7);
        let class = match f[2] {
            "straight_flush" => HandClass::StraightFlush,
            "quads" => HandClass::Quads,
            "full_house" => HandClass::FullHouse,
            "flush" => HandClass::Flush,
            "straight" => HandClass::Straight,
            "trips" => HandClass::Trips,
            "two_pair" => HandClass::TwoPair,
            "pair" => HandClass::Pair,
            "high_card" => HandClass::HighCard,
            other => panic!("unknown class {other}"),
        };
        let s = evaluate_cards(&cards);
        assert_eq!(s.class(), class, "{line}");
        hands.push((f[1].parse::<u32>().unwrap(), s, f[0]));
    }
    assert!(hands.len() >= 3000);
    let mut ties = 0;
    for (r1, s1, h1) in &hands {
        for (r2, s2, h2) in &hands {
            // phevaluator: lower wins; bluff: higher wins.
            assert_eq!(r2.cmp(r1), s1.cmp(s2), "{h1} against {h2}");
            ties += (r1 == r2 && h1 != h2) as u32;
        }
    }
    assert!(ties > 0, "the data should hold some ties");
}

#[test]
fn evaluate_takes_card_sets_of_five_to_seven() {
    let five = parse_cards("AsKsQsJsTs").unwrap();
    let set = five.iter().fold(0u64, |m, c| m | c.bit());
    assert_eq!(evaluate(set).class(), HandClass::StraightFlush);
}

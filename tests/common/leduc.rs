//! A Leduc poker builder with OpenSpiel's rules (6 cards J J Q Q K K, ante 1, raises of 2 then
//! 4, at most 2 raises per round, player 1 opens both rounds), written independently of the
//! registry's `leduc` to cross-check it and to test the LP before that game is merged.

use bluff::game::{Game, GameBuilder, NodeRef};
use bluff::scalar::int;

const RANKS: [&str; 3] = ["J", "Q", "K"];

struct Deal {
    cards: [usize; 2],
    public: Option<usize>,
}

fn label(deal: &Deal, player: usize, history: &str) -> String {
    let own = deal.cards[player];
    let public = deal
        .public
        .map_or(String::new(), |c| format!("{}{}", RANKS[c / 2], c % 2));
    format!("{}{}|{}|{}", RANKS[own / 2], own % 2, public, history)
}

fn showdown(deal: &Deal, stake: i64) -> i64 {
    let p = deal.public.expect("showdown after the public card") / 2;
    let (a, b) = (deal.cards[0] / 2, deal.cards[1] / 2);
    let score = |r: usize| if r == p { 10 + r } else { r };
    match score(a).cmp(&score(b)) {
        std::cmp::Ordering::Greater => stake,
        std::cmp::Ordering::Less => -stake,
        std::cmp::Ordering::Equal => 0,
    }
}

#[allow(clippy::too_many_arguments)]
fn round(
    b: &mut GameBuilder,
    node: NodeRef,
    deal: &mut Deal,
    history: &mut String,
    contrib: [i64; 2],
    player: usize,
    raises: usize,
    acted: bool,
) {
    let facing = contrib[player] < contrib[1 - player];
    let mut actions = Vec::new();
    if facing {
        actions.push("f");
    }
    actions.push("c");
    if raises < 2 {
        actions.push("r");
    }
    let children = b
        .decision(node, player, &label(deal, player, history), &actions)
        .expect("valid decision");
    let raise = if deal.public.is_none() { 2 } else { 4 };
    for (k, &a) in actions.iter().enumerate() {
        let child = children[k];
        history.push_str(a);
        match a {
            "f" => {
                let payoff0 = if player == 0 { -contrib[0] } else { contrib[1] };
                b.terminal_zero_sum(child, int(payoff0)).unwrap();
            }
            "c" => {
                let mut c = contrib;
                c[player] = c[1 - player];
                if !acted {
                    round(b, child, deal, history, c, 1 - player, raises, true);
                } else if deal.public.is_none() {
                    let remaining: Vec<usize> =
                        (0..6).filter(|x| !deal.cards.contains(x)).collect();
                    let names: Vec<String> = remaining
                        .iter()
                        .map(|&x| format!("{}{}", RANKS[x / 2], x % 2))
                        .collect();
                    let kids = b.chance_uniform(child, names).unwrap();
                    for (i, &card) in remaining.iter().enumerate() {
                        deal.public = Some(card);
                        history.push('/');
                        round(b, kids[i], deal, history, c, 0, 0, false);
                        history.pop();
                    }
                    deal.public = None;
                } else {
                    b.terminal_zero_sum(child, int(showdown(deal, c[0])))
                        .unwrap();
                }
            }
            _ => {
                let mut c = contrib;
                c[player] = c[1 - player] + raise;
                round(b, child, deal, history, c, 1 - player, raises + 1, true);
            }
        }
        history.pop();
    }
}

/// Leduc poker, OpenSpiel rules.
pub fn leduc() -> Game {
    let mut b = GameBuilder::new("leduc", "P1", "P2");
    let root = b.root();
    let names: Vec<String> = (0..6)
        .map(|x| format!("{}{}", RANKS[x / 2], x % 2))
        .collect();
    let first = b.chance_uniform(root, names.clone()).unwrap();
    for (c0, &dealt) in first.iter().enumerate() {
        let rest: Vec<usize> = (0..6).filter(|&x| x != c0).collect();
        let second = b
            .chance_uniform(dealt, rest.iter().map(|&x| names[x].clone()).collect())
            .unwrap();
        for (k, &c1) in rest.iter().enumerate() {
            let mut deal = Deal {
                cards: [c0, c1],
                public: None,
            };
            round(
                &mut b,
                second[k],
                &mut deal,
                &mut String::new(),
                [1, 1],
                0,
                0,
                false,
            );
        }
    }
    b.build().expect("Leduc builds")
}

//! The public action tree of hold'em spots against postflop-solver's for the same configs.
//!
//! The counts come from postflop-solver (b-inary/postflop-solver at 9d1509f, built with
//! `--no-default-features --features rayon`): a small driver of our own, outside this
//! repository, builds its `ActionTree` from the same `TreeConfig` and walks it with
//! `available_actions` / `play` / `undo`, counting decision nodes and terminal nodes (by the
//! street of the last action) and chance nodes (by the street they close). postflop-solver
//! ends an all-in call before the river with chance nodes leading to a terminal; bluff ends it
//! in one showdown terminal: both count one terminal on the street of the call.

use bluff::holdem::spot::Spot;
use bluff::holdem::tree::{Counts, Tree, DEFAULT_MAX_NODES};

const FAST_RANGES: &str = r#"
oop_range = "88+,A8s+,A5s-A2s:0.5,AJo+,ATo:0.75,K9s+,KQo,KJo:0.75,KTo:0.25,Q9s+,QJo:0.5,J8s+,JTo:0.25,T8s+,T7s:0.45,97s+,96s:0.45,87s,86s:0.75,85s:0.45,75s+:0.75,74s:0.45,65s:0.75,64s:0.5,63s:0.45,54s:0.75,53s:0.5,52s:0.45,43s:0.5,42s:0.45,32s:0.45"
ip_range = "AA:0.25,99-22,AJs-A2s,AQo-A8o,K2s+,K9o+,Q2s+,Q9o+,J6s+,J9o+,T6s+,T9o,96s+,95s:0.5,98o,86s+,85s:0.5,75s+,74s:0.5,64s+,63s:0.5,54s,53s:0.5,43s"
"#;

fn counts(spot: &str) -> Counts {
    let spot = Spot::parse(&format!("{FAST_RANGES}\n{spot}")).unwrap();
    Tree::build(&spot, DEFAULT_MAX_NODES).unwrap().counts()
}

#[test]
fn three_bet_pot_fast_flop_matches_postflop_solver() {
    // Issue 40's "3betpotFAST" flop spot (PioSOLVER's preset, postflop-solver's
    // solve_pio_preset_normal config), no thresholds.
    let c = counts(
        r#"
board = "QsJh2h"
pot = 180
stack = 910
flop_bet = "52%"
flop_raise = "45%"
turn_bet = "55%"
turn_raise = "45%"
river_bet = "70%"
river_raise = "45%"
"#,
    );
    // postflop-solver: decision [10, 46, 138] terminal [10, 46, 201] chance [7, 25, 0].
    assert_eq!(c.decision, [10, 46, 138]);
    assert_eq!(c.terminal, [10, 46, 201]);
    assert_eq!(c.chance, [7, 25, 0]);
}

#[test]
fn donks_thresholds_and_every_size_kind_match_postflop_solver() {
    let c = counts(
        r#"
board = "QsJh2h"
pot = 180
stack = 910
flop_bet = "33%, 75%, e"
flop_raise = "2.5x, a"
turn_bet = "50%, a"
turn_raise = "3x"
river_bet = "e, 100%"
river_raise = "60%"
turn_donk = "25%"
river_donk = "50%, a"
add_allin = 1.5
force_allin = 0.15
merge = 0.1
"#,
    );
    // postflop-solver: decision [22, 86, 192] terminal [30, 104, 279] chance [11, 35, 0].
    assert_eq!(c.decision, [22, 86, 192]);
    assert_eq!(c.terminal, [30, 104, 279]);
    assert_eq!(c.chance, [11, 35, 0]);
}

#[test]
fn a_turn_spot_with_merging_matches_postflop_solver() {
    let c = counts(
        r#"
board = "QsJh2h8d"
pot = 100
stack = 300
turn_bet = "40%, 80%, e"
turn_raise = "50%, a"
river_bet = "33%, 66%, 125%"
river_raise = "2x, e"
river_donk = "33%"
add_allin = 0.5
force_allin = 0.3
merge = 0.2
"#,
    );
    // postflop-solver: decision [0, 14, 71] terminal [0, 18, 121] chance [0, 7, 0].
    assert_eq!(c.decision, [0, 14, 71]);
    assert_eq!(c.terminal, [0, 18, 121]);
    assert_eq!(c.chance, [0, 7, 0]);
}

#[test]
fn node_paths_print_and_parse() {
    let spot = Spot::parse(&format!(
        "{FAST_RANGES}\nboard = \"QsJh2h\"\npot = 180\nstack = 910\nflop_bet = \"52%\"\nflop_raise = \"45%\"\nturn_bet = \"55%\"\nturn_raise = \"45%\"\nriver_bet = \"70%\"\nriver_raise = \"45%\""
    ))
    .unwrap();
    let tree = Tree::build(&spot, DEFAULT_MAX_NODES).unwrap();
    let text = "flop:check,bet94,call;turn:8d:check";
    let (node, dealt) = tree.find(text).unwrap();
    assert_eq!(tree.path(node, &dealt), text);
    // 94 = round(0.52 x 180) each: the pot is 368 on the turn.
    assert_eq!(tree.nodes[node].committed, [94, 94]);
    // A raise of 45% of the pot after calling 94 (368): by 166, to 260.
    let (n, _) = tree.find("flop:bet94,raise260").unwrap();
    assert_eq!(tree.nodes[n].committed, [94, 260]);
    assert_eq!(tree.find("flop").unwrap().0, 0);
    for bad in [
        "flop:check,bet95",
        "flop:check,bet94,call;turn:Qs:check",
        "flop:check,bet94,call;turn:8d;river:2c",
        "flop:check,bet94;turn:8d",
        "turn:check",
        "flop:check,check;turn:8d:check,check;river:8d",
        "flop:check,check;turn:8x:check",
    ] {
        assert!(tree.find(bad).is_err(), "{bad}");
    }
    // Round trip of every node's path, with cards dealt.
    let cards = bluff::holdem::cards::parse_cards("8d7c").unwrap();
    for i in 0..tree.nodes.len() {
        let p = tree.path(i, &cards);
        let (j, dealt) = tree.find(&p).unwrap();
        assert_eq!(i, j, "{p}");
        assert_eq!(tree.path(j, &dealt), p);
    }
}

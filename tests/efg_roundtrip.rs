//! The `.efg` reader and writer: fixtures with hand-computed values, round trips of every built-in
//! game and of random general trees, and arbitrary input never panicking.

mod common;

use bluff::eval::{expected_value, exploitability};
use bluff::format::efg::{
    efg_to_game, gambit_label, game_to_efg, is_gambit_label, load_efg, read_efg, read_efg_bytes,
    write_efg, EfgChanceInfoset, EfgGame, EfgInfoset, EfgNode, EfgNodeKind, EfgOutcome,
};
use bluff::game::{Game, NodeKind};
use bluff::scalar::{int, rat, Rational};
use bluff::strategy::ExactProfile;
use common::rng::Rng;
use num_traits::Zero;
use proptest::prelude::*;

fn data(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Asserts two compiled games are the same node for node (structure, labels, exact numbers).
fn assert_same_game(a: &Game, b: &Game) {
    assert_eq!(a.name, b.name);
    assert_eq!(a.player_names, b.player_names);
    assert_eq!(a.nodes.len(), b.nodes.len());
    for (x, y) in a.nodes.iter().zip(&b.nodes) {
        assert_eq!(x.kind, y.kind);
        assert_eq!(
            (x.first_child, x.num_children, x.parent, x.action),
            (y.first_child, y.num_children, y.parent, y.action)
        );
    }
    assert_eq!(a.chance_prob, b.chance_prob);
    assert_eq!(a.chance_label, b.chance_label);
    assert_eq!(a.constant_sum, b.constant_sum);
    assert_eq!(a.payoff1, b.payoff1);
    assert_eq!(a.terminals.len(), b.terminals.len());
    for (x, y) in a.terminals.iter().zip(&b.terminals) {
        assert_eq!((&x.payoff0, &x.label), (&y.payoff0, &y.label));
    }
    for p in 0..2 {
        assert_eq!(a.infosets[p].len(), b.infosets[p].len());
        for (x, y) in a.infosets[p].iter().zip(&b.infosets[p]) {
            assert_eq!(x.label, y.label);
            assert_eq!(x.actions, y.actions);
            assert_eq!(x.nodes, y.nodes);
            assert_eq!(x.parent_action, y.parent_action);
        }
    }
}

fn set_probs(game: &Game, prof: &mut ExactProfile, player: usize, label: &str, probs: &[Rational]) {
    let id = game
        .find_infoset(player, label)
        .unwrap_or_else(|| panic!("no set {label}"));
    let r = game.infosets[player][id].action_range();
    prof.probs[player][r].clone_from_slice(probs);
}

/// The documented example: P1 bets High always and Low with 1/6, P2 calls with 2/3; solving the
/// 2x2 indifference conditions by hand gives value -1/9, and the exact best responses confirm it.
#[test]
fn tiny_bluff_has_hand_computed_value() {
    let game = efg_to_game(&read_efg(&data("tiny_bluff.efg")).unwrap().game).unwrap();
    let mut prof = ExactProfile::uniform(&game);
    set_probs(&game, &mut prof, 0, "P1 has High", &[int(1), int(0)]);
    set_probs(&game, &mut prof, 0, "P1 has Low", &[rat(1, 6), rat(5, 6)]);
    set_probs(
        &game,
        &mut prof,
        1,
        "P2 facing a bet",
        &[rat(2, 3), rat(1, 3)],
    );
    let e = exploitability(&game, &prof);
    assert_eq!(e.value[0], rat(-1, 9));
    assert!(e.nash_conv.is_zero());
}

/// Gambit features in one file: chance infoset reused without its description, outcomes on
/// inner nodes (summed), ids out of order, decimals, commas, escaped and multi-line labels.
#[test]
fn gambit_features_are_read_exactly() {
    let parsed = read_efg(&data("features.efg")).unwrap();
    // Older Gambit reads a multi-line player name; Gambit 16 refuses it, which bluff says.
    assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
    assert!(parsed.warnings[0]
        .message
        .contains("player name \"Bob\\nB\" breaks Gambit 16's label rule"));
    let g = &parsed.game;
    assert_eq!(g.players, ["Alice \"A\"", "Bob\nB"]);
    // The writer makes the name acceptable to Gambit 16, and the result reads without warnings.
    let back = read_efg(&write_efg(g).unwrap()).unwrap();
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(back.game.players, ["Alice \"A\"", "Bob B"]);
    assert_eq!(g.chance_infosets.len(), 1);
    assert_eq!(g.chance_infosets[0].probs, vec![rat(1, 4), rat(3, 4)]);
    let game = efg_to_game(g).unwrap();
    // Alice's single set is reached after either coin; the root's outcome (1, -1) adds to every
    // leaf. Heads: L 1+3, R 1+0.5. Tails: L 1-2, R -> coin again: heads 1+0, tails 1+3.
    let prof = ExactProfile::uniform(&game);
    let second_coin = rat(1, 4) * int(1) + rat(3, 4) * int(4);
    let expected = rat(1, 4) * (rat(1, 2) * int(4) + rat(1, 2) * rat(3, 2))
        + rat(3, 4) * (rat(1, 2) * int(-1) + rat(1, 2) * second_coin);
    assert_eq!(expected_value(&game, &prof), expected);
    assert_eq!(game.constant_sum, int(0));
}

#[test]
fn inconsistent_repeats_and_undefined_references_are_errors_with_positions() {
    let base = data("tiny_bluff.efg");
    let cases = [
        (
            base.replace(
                "p \"\" 2 1 0",
                "p \"\" 2 1 \"P2 facing a bet\" { \"Call\" \"Raise\" } 0",
            ),
            "described again differently",
            11,
        ),
        (
            base.replace("t \"\" 3 \"P2 wins 2\"", "t \"\" 9"),
            "outcome 9 is used here before",
            12,
        ),
        (
            base.replace("p \"\" 2 1 0", "p \"\" 2 7 0"),
            "information set 7 of player 2",
            11,
        ),
        (base.replace("2/3 }", "-2/3 }"), "negative", 4),
        (base.replace("1/3", "1/0"), "not a number", 4),
        (base.replace("EFG 2 R", "EFG 3 R"), "version 2", 1),
        (
            base.replace("t \"\" 4 \"P2 wins 1\" { -1 1 }\n", ""),
            "end of file while 1 more child",
            14,
        ),
        (
            format!("{base}\"never closed"),
            "closing '\"' is missing",
            15,
        ),
    ];
    for (text, needle, line) in cases {
        let e = read_efg(&text).unwrap_err();
        assert!(e.message.contains(needle), "{e} should mention {needle:?}");
        assert_eq!(e.pos.line, line, "{e}");
    }
}

#[test]
fn n_player_files_are_refused_and_general_sum_files_load_with_both_payoffs() {
    let three = read_efg(&data("three_players.efg")).unwrap().game;
    assert_eq!(three.players.len(), 3);
    let e = efg_to_game(&three).unwrap_err().to_string();
    assert!(e.contains("3 player(s)"), "{e}");
    // A general-sum file loads, with player 2's own payoffs, and the zero-sum solvers refuse it
    // by name.
    let general = data("tiny_bluff.efg").replace("{ -2 2 }", "{ -2 3 }");
    let game = efg_to_game(&read_efg(&general).unwrap().game).unwrap();
    assert!(!game.is_constant_sum());
    let (streamed, _) = bluff::format::efg::load_efg(general.as_bytes(), |_| {}).unwrap();
    assert_eq!(streamed.payoff1, game.payoff1);
    let t = (0..game.terminals.len())
        .find(|&t| game.payoff(t, 0) == bluff::scalar::int(-2))
        .unwrap();
    assert_eq!(game.payoff(t, 1), bluff::scalar::int(3));
    let e = game.require_constant_sum("lp").unwrap_err().to_string();
    assert!(e.contains("`lcp`"), "{e}");
}

#[test]
fn every_built_in_game_round_trips() {
    for info in bluff::games::registry() {
        let game = bluff::games::load(info.name).unwrap().game;
        let efg = game_to_efg(&game);
        let text = write_efg(&efg).unwrap();
        let back = read_efg(&text).unwrap();
        assert!(back.warnings.is_empty());
        assert_eq!(back.game, efg, "{}", info.name);
        assert_same_game(&game, &efg_to_game(&back.game).unwrap());
    }
}

#[test]
fn load_accepts_efg_paths() {
    let path = format!("{}/tests/data/tiny_bluff.efg", env!("CARGO_MANIFEST_DIR"));
    let game = bluff::games::load(&path).unwrap().game;
    assert_eq!(game.name, "Tiny bluff");
    let missing = bluff::games::load("/nonexistent/x.efg").unwrap_err();
    assert!(format!("{missing:#}").contains("reading /nonexistent/x.efg"));
}

// ---------------------------------------------------------------------------------------------
// Random general trees.

fn label(rng: &mut Rng) -> String {
    const PIECES: [&str; 10] = ["a", "Bet", " ", "\"", "\n", "é", "\\x", "{", "0.5", ","];
    let n = rng.below(4);
    (0..n).map(|_| PIECES[rng.below(10) as usize]).collect()
}

fn number(rng: &mut Rng, signed: bool) -> Rational {
    let num = rng.below(20) as i64 - if signed { 10 } else { 0 };
    let den = rng.below(6) as i64 + 1;
    rat(num, den)
}

struct Gen {
    rng: Rng,
    game: EfgGame,
    zero_sum: bool,
}

impl Gen {
    fn outcome(&mut self) -> Option<usize> {
        let r = self.rng.below(3);
        if r == 0 || (r == 1 && self.game.outcomes.is_empty()) {
            return None;
        }
        if r == 1 {
            return Some(self.rng.below(self.game.outcomes.len() as u64) as usize);
        }
        let n = self.game.players.len();
        let payoffs: Vec<Rational> = if self.zero_sum {
            let x = number(&mut self.rng, true);
            vec![x.clone(), -x]
        } else {
            (0..n).map(|_| number(&mut self.rng, true)).collect()
        };
        let id = 3 * self.game.outcomes.len() as i64 + 1;
        self.game.outcomes.push(EfgOutcome {
            id,
            label: label(&mut self.rng),
            payoffs,
        });
        Some(self.game.outcomes.len() - 1)
    }

    fn node(&mut self, depth: usize) -> usize {
        let idx = self.game.nodes.len();
        let r = self.rng.below(10);
        let kind = if depth >= 4 || r < 3 {
            EfgNodeKind::Terminal
        } else if r < 5 {
            let sets = &self.game.chance_infosets;
            let infoset = if !sets.is_empty() && self.rng.chance(30) {
                self.rng.below(sets.len() as u64) as usize
            } else {
                let k = 1 + self.rng.below(3) as usize;
                let mut probs: Vec<Rational> =
                    (0..k).map(|_| number(&mut self.rng, false)).collect();
                let sum: Rational = probs.iter().sum();
                if sum.is_zero() {
                    probs[0] = int(1);
                }
                let sum: Rational = probs.iter().sum();
                for p in &mut probs {
                    *p = &*p / &sum;
                }
                let id = 2 * self.game.chance_infosets.len() as i64 + 5;
                self.game.chance_infosets.push(EfgChanceInfoset {
                    id,
                    label: label(&mut self.rng),
                    actions: (0..k).map(|_| label(&mut self.rng)).collect(),
                    probs,
                });
                self.game.chance_infosets.len() - 1
            };
            EfgNodeKind::Chance { infoset }
        } else {
            let player = self.rng.below(self.game.players.len() as u64) as usize;
            let sets = &self.game.infosets[player];
            let infoset = if !sets.is_empty() && self.rng.chance(30) {
                self.rng.below(sets.len() as u64) as usize
            } else {
                let k = 1 + self.rng.below(3) as usize;
                let id = 7 * self.game.infosets[player].len() as i64 + 2;
                let lbl = label(&mut self.rng);
                let actions = (0..k).map(|_| label(&mut self.rng)).collect();
                self.game.infosets[player].push(EfgInfoset {
                    id,
                    label: lbl,
                    actions,
                });
                self.game.infosets[player].len() - 1
            };
            EfgNodeKind::Personal { player, infoset }
        };
        let k = match &kind {
            EfgNodeKind::Chance { infoset } => self.game.chance_infosets[*infoset].actions.len(),
            EfgNodeKind::Personal { player, infoset } => {
                self.game.infosets[*player][*infoset].actions.len()
            }
            EfgNodeKind::Terminal => 0,
        };
        let name = label(&mut self.rng);
        let outcome = self.outcome();
        self.game.nodes.push(EfgNode {
            name,
            kind,
            outcome,
            children: Vec::new(),
        });
        for _ in 0..k {
            let c = self.node(depth + 1);
            self.game.nodes[idx].children.push(c);
        }
        idx
    }
}

fn random_efg(seed: u64, players: usize, zero_sum: bool) -> EfgGame {
    let mut g = Gen {
        rng: Rng(seed | 1),
        game: EfgGame {
            title: String::new(),
            comment: None,
            players: Vec::new(),
            nodes: Vec::new(),
            chance_infosets: Vec::new(),
            infosets: vec![Vec::new(); players],
            outcomes: Vec::new(),
        },
        zero_sum,
    };
    g.game.title = label(&mut g.rng);
    g.game.comment = g.rng.chance(50).then(|| label(&mut g.rng));
    g.game.players = (0..players).map(|_| label(&mut g.rng)).collect();
    g.node(0);
    g.game
}

/// The tree with every label but the title and comment as the writer puts it.
fn with_gambit_labels(mut g: EfgGame) -> EfgGame {
    let fix = |l: &mut String| *l = gambit_label(l);
    g.players.iter_mut().for_each(fix);
    for n in &mut g.nodes {
        fix(&mut n.name);
    }
    for s in &mut g.chance_infosets {
        fix(&mut s.label);
        s.actions.iter_mut().for_each(fix);
    }
    for s in g.infosets.iter_mut().flatten() {
        fix(&mut s.label);
        s.actions.iter_mut().for_each(fix);
    }
    for o in &mut g.outcomes {
        fix(&mut o.label);
    }
    g
}

/// The streaming loader ([`load_efg`]) against the general tree route (`read_efg` then
/// `efg_to_game`), two independent readers: the same game node for node and the same warnings
/// when both accept; both refuse otherwise, with the same message for games outside the solvers'
/// reach.
fn assert_routes_agree(bytes: &[u8]) {
    let tree = read_efg_bytes(bytes)
        .map_err(|e| e.to_string())
        .and_then(|p| {
            efg_to_game(&p.game)
                .map(|g| (g, p.warnings))
                .map_err(|e| format!("outside: {e:#}"))
        });
    let stream = load_efg(bytes, |_| {}).map_err(|e| match e {
        bluff::format::efg::LoadError::Parse(e) => e.to_string(),
        bluff::format::efg::LoadError::Outside(m) => format!("outside: {m}"),
    });
    let text = String::from_utf8_lossy(bytes);
    match (tree, stream) {
        (Ok((a, wa)), Ok((b, wb))) => {
            assert_same_game(&a, &b);
            assert_eq!(wa, wb, "{text}");
        }
        (Err(a), Err(b)) => {
            // The stream refuses a game with other than two players on its header, before any
            // syntax error later in the file; the messages agree otherwise.
            if (a.starts_with("outside") || b.starts_with("outside")) && !b.contains("player(s)") {
                assert_eq!(a, b, "{text}");
            }
        }
        (a, b) => panic!(
            "routes disagree: tree {:?}, stream {:?}\n{text}",
            a.map(|_| ()),
            b.map(|_| ())
        ),
    }
}

#[test]
fn streaming_loader_equals_tree_route_on_fixtures_and_built_in_games() {
    for f in [
        "tiny_bluff.efg",
        "features.efg",
        "prob0_chance.efg",
        "three_players.efg",
    ] {
        assert_routes_agree(data(f).as_bytes());
    }
    let general = data("tiny_bluff.efg").replace("{ -2 2 }", "{ -2 3 }");
    assert_routes_agree(general.as_bytes());
    // Text after the tree is ignored, but the file must still be UTF-8 to its end.
    let mut trailing = data("tiny_bluff.efg").into_bytes();
    trailing.extend_from_slice(b"x y \xff");
    assert!(read_efg_bytes(&trailing).is_err());
    assert_routes_agree(&trailing);
    for info in bluff::games::registry() {
        let game = bluff::games::load(info.name).unwrap().game;
        let text = write_efg(&game_to_efg(&game)).unwrap();
        assert_routes_agree(text.as_bytes());
        let (back, _) = load_efg(text.as_bytes(), |_| {}).unwrap();
        assert_same_game(&game, &back);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random trees (outcomes on inner nodes, repeated and odd labels, shared sets, general and
    /// zero-sum payoffs) load the same through both routes.
    #[test]
    fn streaming_loader_equals_tree_route(seed in any::<u64>(), zero_sum in any::<bool>(), gambit in any::<bool>()) {
        let efg = random_efg(seed, 2, zero_sum);
        let efg = if gambit { with_gambit_labels(efg) } else { efg };
        assert_routes_agree(write_efg(&efg).unwrap().as_bytes());
    }

    /// Cut or changed files: both routes accept or both refuse (never a panic).
    #[test]
    fn streaming_loader_agrees_on_mutated_files(seed in any::<u64>(), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let text = write_efg(&random_efg(seed, 2, true)).unwrap().into_bytes();
        let i = cut.index(text.len());
        assert_routes_agree(&text[..i]);
        let mut changed = text.clone();
        changed[i] = byte;
        assert_routes_agree(&changed);
    }

    /// Writing then reading gives back the same tree: structure, exact numbers, ids, and
    /// labels as Gambit 16 takes them (the title and comment exactly).
    #[test]
    fn random_general_trees_round_trip(seed in any::<u64>(), players in 1usize..4) {
        let efg = random_efg(seed, players, false);
        let text = write_efg(&efg).unwrap();
        let back = read_efg(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        prop_assert_eq!(back.game, with_gambit_labels(efg));
    }

    /// Rewritten labels follow the rule, and labels that follow it are left alone.
    #[test]
    fn gambit_labels_follow_gambits_rule(s in "[ a-z\t\n\u{e9}~]{0,12}") {
        let g = gambit_label(&s);
        prop_assert!(is_gambit_label(&g), "{:?} -> {:?}", s, g);
        if is_gambit_label(&s) {
            prop_assert_eq!(g, s);
        }
    }

    /// Random two-player zero-sum trees become games; exporting and re-reading them gives the
    /// same game node for node, with the same exact value under uniform play.
    #[test]
    fn random_zero_sum_games_round_trip_through_game(seed in any::<u64>()) {
        // Labels as Gambit 16 takes them, which the writer leaves unchanged.
        let efg = with_gambit_labels(random_efg(seed, 2, true));
        match efg_to_game(&efg) {
            Ok(game) => {
                let text = write_efg(&game_to_efg(&game)).unwrap();
                let again = efg_to_game(&read_efg(&text).unwrap().game).unwrap();
                assert_same_game(&game, &again);
                let u = ExactProfile::uniform(&game);
                prop_assert_eq!(expected_value(&game, &u), expected_value(&again, &ExactProfile::uniform(&again)));
            }
            // Random information-set reuse may break perfect recall, which the solvers need.
            Err(e) => prop_assert!(format!("{e:#}").contains("perfect recall"), "{e:#}"),
        }
    }

    /// Arbitrary bytes never panic the reader.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = read_efg_bytes(&bytes);
    }

    /// Valid files cut or with one byte changed never panic the reader or the conversion.
    #[test]
    fn mutated_files_never_panic(seed in any::<u64>(), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let text = write_efg(&random_efg(seed, 2, true)).unwrap().into_bytes();
        let i = cut.index(text.len());
        let _ = read_efg_bytes(&text[..i]).map(|p| efg_to_game(&p.game));
        let mut changed = text.clone();
        changed[i] = byte;
        let _ = read_efg_bytes(&changed).map(|p| efg_to_game(&p.game));
    }
}

/// A terminal's payoff is the sum of the outcomes on its path (hand-summed for the fixture).
#[test]
fn compiled_terminals_carry_path_sums() {
    let game = efg_to_game(&read_efg(&data("features.efg")).unwrap().game).unwrap();
    let pays: Vec<Rational> = game
        .nodes
        .iter()
        .filter_map(|n| match n.kind {
            NodeKind::Terminal { terminal } => {
                Some(game.terminals[terminal as usize].payoff0.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(pays.len(), 5);
    let mut sorted = pays.clone();
    sorted.sort();
    assert_eq!(sorted, vec![int(-1), int(1), rat(3, 2), int(4), int(4)]);
}

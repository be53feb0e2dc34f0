//! Strategy files of hold'em spots (`holdem::strategy_file`): written from the solver, read
//! back into the engine's evaluator, checked against the independent route
//! (`holdem::reference`), and refused when truncated, corrupt or made for another spot.

use bluff::cfr::RegretParams;
use bluff::holdem::cards::Card;
use bluff::holdem::reference::{self, DEFAULT_MAX_NODES};
use bluff::holdem::solver::{Game, Solver};
use bluff::holdem::spot::Spot;
use bluff::holdem::strategy_file::{
    self, decision_paths, node_strategy, Provenance, Reader, StrategyFileError,
};
use bluff::holdem::tree::Action;
use bluff::scalar::Scalar;

/// A turn spot on a reduced deck (small enough for the reference route).
const TURN_SPOT: &str = include_str!("data/spots/turn_reduced.toml");

fn river_spot() -> Spot {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/spots/river.toml"
    ))
    .unwrap();
    Spot::parse(&text).unwrap()
}

/// A strategy given by (player, tree node, dealt cards, hand) whose probabilities are
/// multiples of 1/8 (exact in f32, so a file holds them exactly): some pure, most mixed.
fn dyadic(node: usize, dealt: &[Card], hand: (Card, Card), k: usize) -> Vec<f64> {
    let mix = node * 31
        + dealt.iter().map(|c| c.0 as usize * 7).sum::<usize>()
        + hand.0 .0 as usize * 3
        + hand.1 .0 as usize;
    let mut row = vec![0.0; k];
    let first = (mix % 5) as f64 / 8.0; // 0 to 1/2
    row[0] = first;
    if k > 2 {
        row[1] = ((mix / 5) % 3) as f64 / 8.0;
    }
    let rest: f64 = row.iter().sum();
    row[k - 1] += 1.0 - rest;
    row
}

/// Check (where offered) or call, else the first action.
fn check_call(tree: &bluff::holdem::tree::Tree, node: usize) -> Vec<f64> {
    let kids: Vec<usize> = tree.nodes[node].children().collect();
    let pick = kids
        .iter()
        .position(|&c| matches!(tree.nodes[c].action, Some(Action::Check | Action::Call)))
        .unwrap_or(0);
    (0..kids.len()).map(|i| f64::from(i == pick)).collect()
}

/// A strategy by (tree node, dealt cards, hand, actions): the probabilities of the actions.
type StrategyFn = dyn Fn(usize, &[Card], (Card, Card), usize) -> Vec<f64>;

/// An evaluator of `spot` holding the strategy `f(tree node, dealt, hand, k)` at every node.
fn evaluator_with(spot: &Spot, f: &StrategyFn) -> Solver {
    let game = Game::build(spot, 10_000_000).unwrap();
    let paths = decision_paths(&game);
    let mut solver = Solver::evaluator(game, 1);
    for (g, path) in paths {
        let game = &solver.game;
        let (t, dealt) = game.tree.find(&path).unwrap();
        assert_eq!(t, game.nodes[g].tree_node as usize, "{path}");
        let k = game.nodes[g].num_children as usize;
        let a = match game.nodes[g].kind {
            bluff::holdem::solver::GameKind::Decision(a) => a as usize,
            _ => unreachable!(),
        };
        let mut probs = Vec::new();
        for &h in &game.hands[a] {
            probs.extend(f(t, &dealt, h, k));
        }
        solver.set_average_at(g, &probs);
    }
    solver
}

#[test]
fn a_hand_made_strategy_has_the_values_of_the_reference_route() {
    let spot = Spot::parse(TURN_SPOT).unwrap();
    let route = reference::game(&spot, DEFAULT_MAX_NODES).unwrap();
    let tree = route.tree.clone();
    let pot = spot.pot as f64;
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * pot;
    let dir = tempfile::tempdir().unwrap();
    type Strategy = Box<StrategyFn>;
    let tree2 = tree.clone();
    let strategies: [(&str, Strategy); 2] = [
        (
            "check_call",
            Box::new(move |t, _, _, _| check_call(&tree2, t)),
        ),
        ("dyadic", Box::new(dyadic)),
    ];
    for (name, f) in strategies {
        let profile = route.profile_from(|_, t, dealt, hand| {
            // The route gives the hand lower card first; the engine higher first.
            let hand = if hand.0 .0 > hand.1 .0 {
                hand
            } else {
                (hand.1, hand.0)
            };
            f(t, dealt, hand, tree.nodes[t].num_children as usize)
        });
        let ev = route.ev(&profile);
        let expl = route.exploitability(&profile);
        let mut solver = evaluator_with(&spot, &*f);
        let v = solver.values();
        assert!(
            close(v.ev[0], ev[0]) && close(v.ev[1], ev[1]),
            "{name}: {v:?} {ev:?}"
        );
        assert!(close(v.exploitability, expl), "{name}: {v:?} {expl}");
        assert!(expl > 1e-3 * pot, "{name}: a strategy far from equilibrium");
        // Written and read back: the same numbers (multiples of 1/8 are exact in f32).
        let path = dir.path().join(format!("{name}.bin"));
        strategy_file::write(&path, &spot, &solver, &Provenance::default()).unwrap();
        let game = Game::build(&spot, 10_000_000).unwrap();
        let (mut back, _) = strategy_file::load(&path, &spot, game, 2).unwrap();
        let w = back.values();
        assert!(close(w.exploitability, expl), "{name}: {w:?} {expl}");
        assert!(close(w.ev[0], ev[0]) && close(w.ev[1], ev[1]), "{name}");
    }
}

#[test]
fn a_solved_strategy_reads_back_with_the_solver_values_to_f32_precision() {
    let spot = river_spot();
    let pot = spot.pot as f64;
    let game = Game::build(&spot, 1_000_000).unwrap();
    let mut solver = Solver::new(game, RegretParams::dcfr_plus(), 1);
    solver.iterate(60);
    let v = solver.values();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("river.bin");
    let provenance = Provenance {
        algo: "dcfr+".into(),
        iterations: 60,
        exploitability: Some(v.exploitability),
    };
    let bytes = strategy_file::write(&path, &spot, &solver, &provenance).unwrap();
    assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
    // No larger than the solver's state (three f64 arrays): the f32 probabilities are one
    // sixth of it, plus the header and paths.
    let game = Game::build(&spot, 1_000_000).unwrap();
    let (mut back, header) = strategy_file::load(&path, &spot, game, 1).unwrap();
    assert_eq!(header.iterations, 60);
    assert_eq!(header.algo, "dcfr+");
    // Every probability within f32 rounding of the solver's.
    for (g, _) in decision_paths(&solver.game) {
        for (a, b) in solver.average_at(g).iter().zip(back.average_at(g)) {
            assert!((a - b).abs() <= 1e-7, "{a} {b}");
        }
    }
    let w = back.values();
    // f32 probabilities: each within 6e-8 of the f64 one, so values within 1e-6 of the pot.
    assert!(
        (w.exploitability - v.exploitability).abs() <= 1e-6 * pot,
        "{w:?} {v:?}"
    );
    for p in 0..2 {
        assert!((w.ev[p] - v.ev[p]).abs() <= 1e-6 * pot);
        assert!((w.best_response[p] - v.best_response[p]).abs() <= 1e-6 * pot);
    }
    assert!(
        v.exploitability > 1e-5 * pot,
        "not converged to nothing: {v:?}"
    );
}

#[test]
fn a_node_is_read_with_each_hands_reach() {
    let spot = river_spot();
    let game = Game::build(&spot, 1_000_000).unwrap();
    let mut solver = Solver::new(game, RegretParams::dcfr_plus(), 1);
    solver.iterate(20);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("river.bin");
    strategy_file::write(&path, &spot, &solver, &Provenance::default()).unwrap();
    let game = Game::build(&spot, 1_000_000).unwrap();
    // OOP facing IP's bet after checking: reach = weight x P(check at the root).
    let node = node_strategy(&path, &spot, &game, "river: check, bet50").unwrap();
    assert_eq!(node.path, "river:check,bet50");
    assert_eq!(node.player, 0);
    assert_eq!(node.actions, ["fold", "call", "allin"]);
    let root = solver.average_at(0);
    let (t, _) = game.tree.find("river:check,bet50").unwrap();
    let g = game
        .nodes
        .iter()
        .position(|n| n.tree_node as usize == t)
        .unwrap();
    let here = solver.average_at(g);
    let k_root = game.nodes[0].num_children as usize;
    for (h, hand) in node.hands.iter().enumerate() {
        let expect = game.weights[0][h] * root[h * k_root] as f32 as f64;
        assert!((hand.reach - expect).abs() < 1e-12, "{hand:?} {expect}");
        for (c, p) in hand.strategy.iter().enumerate() {
            assert!((p - here[h * 3 + c]).abs() <= 1e-7);
        }
    }
    // A path that is not a node, a terminal, another street: refused by name.
    for (bad, needle) in [
        ("river:check,bet60", "no action `bet60` here"),
        ("river:check,check", "not a decision node"),
        ("turn:check", "expected `river`, found `turn`"),
    ] {
        let e = node_strategy(&path, &spot, &game, bad).unwrap_err();
        assert!(e.to_string().contains(needle), "{bad}: {e}");
    }
}

#[test]
fn a_turn_path_must_name_the_river_card() {
    let spot = Spot::parse(TURN_SPOT).unwrap();
    let solver = evaluator_with(&spot, &dyadic);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("turn.bin");
    strategy_file::write(&path, &spot, &solver, &Provenance::default()).unwrap();
    let game = &solver.game;
    let e = node_strategy(&path, &spot, game, "turn:check,check;river:check").unwrap_err();
    assert!(e.to_string().contains("name the card dealt"), "{e}");
    let node = node_strategy(&path, &spot, game, "turn:check,check;river:As:check").unwrap();
    assert_eq!(node.player, 1);
    // Hands holding the dealt ace have no reach; some others have.
    assert!(node.hands.iter().any(|h| h.reach > 0.0));
    for h in node.hands.iter().filter(|h| h.hand.contains("As")) {
        assert_eq!(h.reach, 0.0, "{h:?}");
    }
}

/// Whether reading `path` for `spot` and its `game` fails (it must never panic).
fn refused(path: &std::path::Path, spot: &Spot, game: &Game) -> Result<(), StrategyFileError> {
    Reader::open(path, spot, game)?.read(|_, _| {}).map(|_| ())
}

/// Whether reading `bytes` as a strategy file fails: written to a new file (a file replaced
/// in place is flushed to disk on close by ext4, which would make this slow).
fn refused_bytes(
    dir: &std::path::Path,
    bytes: &[u8],
    spot: &Spot,
    game: &Game,
) -> Result<(), StrategyFileError> {
    let path = dir.join("bad.bin");
    std::fs::write(&path, bytes).unwrap();
    let r = refused(&path, spot, game);
    std::fs::remove_file(&path).unwrap();
    r
}

#[test]
fn truncated_corrupt_and_foreign_files_are_refused() {
    let spot = river_spot();
    let game = Game::build(&spot, 1_000_000).unwrap();
    let mut solver = Solver::new(game, RegretParams::dcfr_plus(), 1);
    solver.iterate(10);
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.bin");
    strategy_file::write(&good, &spot, &solver, &Provenance::default()).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    refused(&good, &spot, &solver.game).unwrap();
    let bad = dir.path().join("bad.bin");
    // Every truncation.
    for cut in 0..bytes.len() {
        let r = refused_bytes(dir.path(), &bytes[..cut], &spot, &solver.game);
        assert!(r.is_err(), "cut at {cut}");
    }
    // Every single-byte change.
    for at in 0..bytes.len() {
        let mut b = bytes.clone();
        b[at] ^= 0x41;
        let r = refused_bytes(dir.path(), &b, &spot, &solver.game);
        assert!(r.is_err(), "byte {at}");
    }
    // A byte too many.
    let mut b = bytes.clone();
    b.push(0);
    std::fs::write(&bad, &b).unwrap();
    assert!(matches!(
        refused(&bad, &spot, &solver.game),
        Err(StrategyFileError::Length { .. })
    ));
    // A flipped probability: the checksum.
    let mut b = bytes.clone();
    let n = b.len();
    b[n - 20] ^= 1;
    std::fs::write(&bad, &b).unwrap();
    assert!(matches!(
        refused(&bad, &spot, &solver.game),
        Err(StrategyFileError::Checksum)
    ));
    // Not a strategy file at all.
    std::fs::write(&bad, "board = \"QsJh2h\"\n").unwrap();
    assert!(matches!(
        refused(&bad, &spot, &solver.game),
        Err(StrategyFileError::NotAStrategyFile)
    ));
    // Other spots: the difference is named.
    let river = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/spots/river.toml"
    ))
    .unwrap();
    for (from, to, needle) in [
        ("QsJh2h8d7c", "QsJh2h8d6c", "its board is QsJh2h8d7c"),
        ("pot = 100", "pot = 120", "its pot is 100"),
        (
            "AA,KK,",
            "AA,KK:0.5,",
            "oop_range has the same combos with other weights",
        ),
        ("KK,QJs", "KK,QJo", "ip_range has other combos"),
        ("\"50%, a\"", "\"40%, a\"", "action tree differs"),
    ] {
        assert!(river.contains(from), "{from}");
        let other = Spot::parse(&river.replacen(from, to, 1)).unwrap();
        let other_game = Game::build(&other, 1_000_000).unwrap();
        match refused(&good, &other, &other_game) {
            Err(StrategyFileError::OtherSpot(why)) => assert!(why.contains(needle), "{why}"),
            e => panic!("{to}: {e:?}"),
        }
    }
    // A missing file names the system's reason.
    let e = Reader::open(&dir.path().join("none.bin"), &spot, &solver.game)
        .err()
        .unwrap();
    assert!(e.to_string().contains("opening it"), "{e}");
}

/// A small flop spot on the full deck whose clubs and diamonds are interchangeable (the board
/// and both ranges are fixed by swapping them): the solver walks one deal of each such pair.
const SYMMETRIC_FLOP: &str = include_str!("data/spots/flop_symmetric.toml");

/// A deal the solver did not walk (8d, whose twin 8c was walked) is read from its twin with
/// the hands swapped back: per hand, the strategy and reach a run that walked every deal
/// wrote, on the turn and on a river below it (10 iterations of f64 CFR, where the two runs
/// agree to 1e-9; the file's f32 to 1e-6).
#[test]
fn an_unwalked_deal_reads_through_its_twin() {
    use bluff::holdem::solver::Deals;
    let spot = Spot::parse(SYMMETRIC_FLOP).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let runs = [Deals::Isomorphic, Deals::Every].map(|deals| {
        let game = Game::build_with(&spot, 10_000_000, deals).unwrap();
        let mut solver = Solver::new(game, RegretParams::vanilla(), 1);
        solver.iterate(10);
        let path = dir.path().join(format!("{deals:?}.bin"));
        let provenance = Provenance {
            algo: "cfr".into(),
            iterations: 10,
            exploitability: None,
        };
        strategy_file::write(&path, &spot, &solver, &provenance).unwrap();
        (path, solver.game)
    });
    assert!(
        runs[0].1.nodes.len() < runs[1].1.nodes.len(),
        "the spot has a symmetry"
    );
    for node in [
        "flop:check,check;turn:8d",
        "flop:check,check;turn:8d:check,check;river:3d",
        "flop:check,check;turn:8d:check,check;river:3c",
        "flop:bet10,call;turn:8d:check,bet20",
        "flop:bet10,call;turn:8c:check,bet20",
    ] {
        let [twin, every] = [&runs[0], &runs[1]]
            .map(|(path, game)| node_strategy(path, &spot, game, node).unwrap());
        assert_eq!(twin.path, every.path, "{node}");
        assert_eq!(twin.hands.len(), every.hands.len());
        let mut moved = 0;
        for (a, b) in twin.hands.iter().zip(&every.hands) {
            assert_eq!((&a.hand, a.weight), (&b.hand, b.weight), "{node}");
            assert!((a.reach - b.reach).abs() < 1e-6, "{node} {}: reach", a.hand);
            for (x, y) in a.strategy.iter().zip(&b.strategy) {
                assert!((x - y).abs() < 1e-6, "{node} {}: {x} against {y}", a.hand);
            }
            let uniform = 1.0 / a.strategy.len() as f64;
            moved += usize::from(a.strategy.iter().any(|&x| (x - uniform).abs() > 0.01));
        }
        assert!(moved > 0, "{node}: no hand's strategy moved from uniform");
    }
}

/// The in-memory reads (`solver_node_strategy`, `exact_eval_solver`, for `bluff.holdem`) give
/// what the file of the same solver gives: every node per hand within the file's f32 rounding
/// (through a suit-swapped twin too), and the exact evaluation to the last bit.
#[test]
fn a_solver_in_memory_reads_as_its_file() {
    use bluff::holdem::river_lp::{exact_eval_file, exact_eval_solver};
    use bluff::holdem::solver::Deals;
    use bluff::holdem::strategy_file::{path_index, solver_node_strategy};
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            river_spot(),
            vec!["river", "river:check", "river: check, bet50"],
        ),
        (
            Spot::parse(SYMMETRIC_FLOP).unwrap(),
            vec![
                "flop",
                "flop:check,check;turn:8d:check,check;river:3c",
                "flop:bet10,call;turn:8c:check,bet20",
            ],
        ),
    ];
    for (i, (spot, nodes)) in cases.iter().enumerate() {
        let game = Game::build_with(spot, 10_000_000, Deals::Isomorphic).unwrap();
        let mut solver = Solver::new(game, RegretParams::dcfr_plus(), 1);
        solver.iterate(8);
        let path = dir.path().join(format!("{i}.bin"));
        strategy_file::write(&path, spot, &solver, &Provenance::default()).unwrap();
        let index = path_index(&solver.game);
        assert_eq!(index.len(), decision_paths(&solver.game).len());
        for node in nodes {
            let file = node_strategy(&path, spot, &solver.game, node).unwrap();
            let mem = solver_node_strategy(&solver, &index, node).unwrap();
            assert_eq!((&file.path, file.player), (&mem.path, mem.player));
            assert_eq!(file.actions, mem.actions);
            for (a, b) in file.hands.iter().zip(&mem.hands) {
                assert_eq!((&a.hand, a.weight), (&b.hand, b.weight), "{node}");
                assert!((a.reach - b.reach).abs() < 1e-6, "{node} {}", a.hand);
                let sum: f64 = b.strategy.iter().sum();
                assert!((sum - 1.0).abs() < 1e-12, "{node} {}: {sum}", a.hand);
                for (x, y) in a.strategy.iter().zip(&b.strategy) {
                    assert!((x - y).abs() <= 1e-7, "{node} {}: {x} {y}", a.hand);
                }
            }
        }
        let e = solver_node_strategy(&solver, &index, "river:check,bet1000").unwrap_err();
        assert!(e.to_string().contains("bet1000"), "{e}");
        if i == 0 {
            let f = exact_eval_file(spot, &solver.game, &path, DEFAULT_MAX_NODES).unwrap();
            let m = exact_eval_solver(spot, &solver, &index, DEFAULT_MAX_NODES).unwrap();
            assert_eq!(f.exploitability, m.exploitability);
            assert_eq!(f.value, m.value);
            assert!(f.exploitability > bluff::scalar::Rational::from_integer(0.into()));
        }
    }
}

/// Raked, the engine's values are the reference route's: a CFR strategy evaluated by the
/// engine in f64 and by the spot played hand against hand in rationals gives each player the
/// same EV and best-response value, to the f32 rounding of the strategy the exact route reads
/// (folds leave an uncalled bet out of the raked pot, calls reach the cap).
#[test]
fn raked_values_of_the_engine_are_the_reference_routes() {
    use bluff::holdem::river_lp::exact_eval_solver;
    use bluff::holdem::solver::Deals;
    use bluff::holdem::strategy_file::path_index;
    let base = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/spots/river.toml"
    ))
    .unwrap();
    for (rake, cap) in [("0.1", "1000"), ("0.05", "8")] {
        let spot = Spot::parse(&format!("{base}rake = {rake}\nrake_cap = {cap}\n")).unwrap();
        let game = Game::build_with(&spot, 10_000_000, Deals::Isomorphic).unwrap();
        let mut solver = Solver::new(game, RegretParams::dcfr_plus(), 1);
        solver.iterate(12);
        let values = solver.values();
        let index = path_index(&solver.game);
        let exact = exact_eval_solver(&spot, &solver, &index, DEFAULT_MAX_NODES).unwrap();
        for p in 0..2 {
            let ev = exact.value[p].to_f64();
            let br = exact.best_response_value[p].to_f64();
            assert!(
                (values.ev[p] - ev).abs() < 1e-6,
                "rake {rake} cap {cap} P{p}: {} {ev}",
                values.ev[p]
            );
            assert!(
                (values.best_response[p] - br).abs() < 1e-6,
                "rake {rake} cap {cap} P{p}: {} {br}",
                values.best_response[p]
            );
        }
    }
}

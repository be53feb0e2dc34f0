//! The float-guided LCP route (float Lemke pivots on the sparse LU, the final basis solved
//! exactly and certified) against the exact dense tableau, and zero-sum games against the LP.

use bluff::eval::exploitability;
use bluff::exact::solve_exact;
use bluff::game::{Game, GameBuilder};
use bluff::games::builtin;
use bluff::lcp::{solve_lcp, LcpError, LcpMethod, LcpOptions, LcpRoute, LcpSolution, LcpStart};
use bluff::scalar::int;
use bluff::strategy::ExactProfile;
use num_traits::Zero;

fn run(g: &Game, method: LcpMethod, start: LcpStart) -> LcpSolution {
    solve_lcp(
        g,
        &LcpOptions {
            method,
            start,
            ..LcpOptions::default()
        },
    )
    .unwrap()
}

fn assert_guided(s: &LcpSolution, what: &str) {
    assert!(
        matches!(s.route, LcpRoute::Guided { .. }),
        "{what}: {}",
        s.route.describe()
    );
}

/// Both routes follow the same lexicographic path, so they end at the same equilibrium:
/// the same exact plans and values, each certified by the exact evaluator.
#[test]
fn guided_and_tableau_give_the_same_equilibrium_on_raked_games() {
    for spec in [
        "kuhn(rake=0.05)",
        "kuhn(rake=0.1,rake_cap=1/4)",
        "one-card-poker(n=4,a=2,b=1,rake=0.05)",
        "one-card-poker(n=6,a=2,b=1,rake=0.05)",
    ] {
        let g = builtin(spec).unwrap();
        let guided = run(&g, LcpMethod::Guided, LcpStart::FirstActions);
        let tableau = run(&g, LcpMethod::Tableau, LcpStart::FirstActions);
        assert_guided(&guided, spec);
        assert_eq!(tableau.route, LcpRoute::Tableau);
        assert_eq!(guided.value, tableau.value, "{spec}");
        assert_eq!(guided.plans, tableau.plans, "{spec}");
        let e = exploitability(&g, &guided.profile);
        assert!(e.nash_conv.is_zero(), "{spec}");
        assert_eq!(e.value, guided.value, "{spec}");
    }
}

/// Raked Leduc (about 4000 LCP rows, beyond the dense tableau's reach in a test): the guided
/// route certifies an equilibrium, checked again by the exact evaluator. From the zero-sum
/// part's basis (`LcpStart::ZeroSumPart`, the command line's default for a general-sum game)
/// the path ends in fewer pivots than the LCP has rows (the first actions' path takes about
/// 21 per row) at an equilibrium with the same exact values, also certified.
#[test]
fn raked_leduc_is_certified_by_the_guided_route() {
    let g = builtin("leduc(rake=0.05)").unwrap();
    let s = run(&g, LcpMethod::Guided, LcpStart::FirstActions);
    assert_guided(&s, "leduc");
    let e = exploitability(&g, &s.profile);
    assert!(e.nash_conv.is_zero());
    assert_eq!(e.gain, [int(0), int(0)]);
    assert_eq!(e.value, s.value);
    let warm = run(&g, LcpMethod::Guided, LcpStart::ZeroSumPart);
    assert!(
        matches!(warm.route, LcpRoute::FromZeroSumPart(_)),
        "{}",
        warm.route.describe()
    );
    assert!(warm.pivots < warm.rows as u64, "{} pivots", warm.pivots);
    let e = exploitability(&g, &warm.profile);
    assert_eq!(e.gain, [int(0), int(0)]);
    assert_eq!(e.value, warm.value);
    assert_eq!(warm.value, s.value);
}

/// Zero-sum games through the guided LCP give the LP's exact value.
#[test]
fn zero_sum_games_through_the_guided_lcp_have_the_lp_value() {
    for spec in ["kuhn", "one-card-poker(n=8,a=2,b=1)", "leduc"] {
        let g = builtin(spec).unwrap();
        let lp = solve_exact(&g).unwrap();
        let s = run(&g, LcpMethod::Guided, LcpStart::FirstActions);
        assert_guided(&s, spec);
        assert_eq!(s.value[0], lp.value, "{spec}");
        assert_eq!(s.value[1], &g.constant_sum - &lp.value, "{spec}");
    }
}

/// Games where every ratio test ties: player 1 indifferent everywhere, player 2's payoffs
/// equal in pairs of columns; from three starts the guided path ends, certified, at the
/// tableau's equilibrium.
#[test]
fn degenerate_games_end_and_match_the_tableau() {
    let acts = ["a", "b", "c", "d"];
    for (name, pay) in [
        (
            "indifferent",
            (|_: usize, c: usize| [0, (c % 2) as i64]) as fn(usize, usize) -> [i64; 2],
        ),
        ("all equal", |_, _| [1, 1]),
        ("tied pairs", |r, c| {
            [((r + c) % 2) as i64, ((r / 2 + c / 2) % 2) as i64]
        }),
    ] {
        let mut b = GameBuilder::new(name, "P1", "P2");
        let root = b.root();
        let rows = b.decision(root, 0, "P1", &acts).unwrap();
        for (r, &rn) in rows.iter().enumerate() {
            let cols = b.decision(rn, 1, "P2", &acts).unwrap();
            for (c, &cn) in cols.iter().enumerate() {
                let [x, y] = pay(r, c);
                b.terminal(cn, [int(x), int(y)]).unwrap();
            }
        }
        let g = b.build().unwrap();
        for start in [
            LcpStart::FirstActions,
            LcpStart::Pure([vec![2], vec![1]]),
            LcpStart::Profile(ExactProfile::uniform(&g)),
        ] {
            let guided = run(&g, LcpMethod::Guided, start.clone());
            let tableau = run(&g, LcpMethod::Tableau, start.clone());
            assert_guided(&guided, name);
            assert!(guided.certificate.nash_conv.is_zero(), "{name}");
            assert_eq!(guided.value, tableau.value, "{name} {start:?}");
            assert_eq!(guided.plans, tableau.plans, "{name} {start:?}");
        }
    }
}

/// The pivot budget is a typed error on both routes, never a loop.
#[test]
fn the_pivot_budget_is_a_typed_error() {
    let g = builtin("kuhn(rake=0.05)").unwrap();
    for method in [LcpMethod::Guided, LcpMethod::Tableau] {
        let err = solve_lcp(
            &g,
            &LcpOptions {
                method,
                max_pivots: Some(2),
                ..LcpOptions::default()
            },
        )
        .unwrap_err();
        assert!(matches!(err, LcpError::PivotLimit { pivots: 2 }), "{err}");
    }
}

/// The largest raked one-card poker (50 cards, 1606 rows): the lexicographic float path (ties
/// compared to the rows' norms) ends without coming back to a basis and its final basis, solved
/// exactly, certifies, with no perturbed path and no exact tableau. Checked again by the exact
/// evaluator; the value for each player is 1503361/1624000, as the path on a perturbed `q`
/// (a second float path, through other bases) also finds.
#[test]
fn the_lexicographic_float_path_certifies_raked_one_card_poker_with_50_cards() {
    let g = builtin("one-card-poker(n=50,a=2,b=1,rake=0.05)").unwrap();
    let s = run(&g, LcpMethod::Guided, LcpStart::FirstActions);
    assert!(
        matches!(
            s.route,
            LcpRoute::Guided {
                perturbed: None,
                ..
            }
        ),
        "{}",
        s.route.describe()
    );
    assert!(s.pivots < 2 * s.rows as u64, "{} pivots", s.pivots);
    let e = exploitability(&g, &s.profile);
    assert!(e.nash_conv.is_zero());
    assert!(e.gain.iter().all(Zero::is_zero));
    assert_eq!(e.value, s.value);
    let v: bluff::scalar::Rational = "1503361/1624000".parse().unwrap();
    assert_eq!(s.value, [v.clone(), v]);
}

/// Raked Kuhn and raked one-card poker from the zero-sum part's basis: certified equilibria
/// (the exact evaluator's gains are 0), each player's value the evaluator's.
#[test]
fn raked_games_from_the_zero_sum_part_are_certified() {
    for spec in [
        "kuhn(rake=0.05)",
        "one-card-poker(n=20,a=2,b=1,rake=0.05)",
        "one-card-poker(n=30,a=2,b=1,rake=0.05)",
    ] {
        let g = builtin(spec).unwrap();
        let s = run(&g, LcpMethod::Guided, LcpStart::ZeroSumPart);
        assert!(
            matches!(s.route, LcpRoute::FromZeroSumPart(_)),
            "{spec}: {}",
            s.route.describe()
        );
        let e = exploitability(&g, &s.profile);
        assert_eq!(e.gain, [int(0), int(0)], "{spec}");
        assert_eq!(e.value, s.value, "{spec}");
    }
}

/// A zero-sum game is its own zero-sum part: from its equilibrium's basis the LCP gives the
/// LP's exact value.
#[test]
fn zero_sum_games_from_their_own_equilibrium_basis_have_the_lp_value() {
    for spec in ["kuhn", "one-card-poker(n=8,a=2,b=1)", "leduc"] {
        let g = builtin(spec).unwrap();
        let lp = solve_exact(&g).unwrap();
        let s = run(&g, LcpMethod::Guided, LcpStart::ZeroSumPart);
        assert!(
            matches!(s.route, LcpRoute::FromZeroSumPart(_)),
            "{spec}: {}",
            s.route.describe()
        );
        assert_eq!(s.value[0], lp.value, "{spec}");
        assert_eq!(s.value[1], &g.constant_sum - &lp.value, "{spec}");
    }
}

/// Raked one-card poker with 10 cards: the path from the zero-sum part's basis ends on a ray
/// (a covering vector other than the slack start's may), and the first actions' path answers,
/// the route saying so; its equilibrium is the one the first actions' path gives alone.
#[test]
fn a_ray_from_the_zero_sum_part_falls_back_to_the_first_actions() {
    let g = builtin("one-card-poker(n=10,a=2,b=1,rake=0.05)").unwrap();
    let s = run(&g, LcpMethod::Guided, LcpStart::ZeroSumPart);
    let LcpRoute::AfterZeroSumPart(why, route) = &s.route else {
        panic!("{}", s.route.describe());
    };
    assert!(why.contains("ray"), "{why}");
    assert!(
        matches!(**route, LcpRoute::Guided { .. }),
        "{}",
        route.describe()
    );
    let first = run(&g, LcpMethod::Guided, LcpStart::FirstActions);
    assert_eq!(s.plans, first.plans);
    let e = exploitability(&g, &s.profile);
    assert_eq!(e.gain, [int(0), int(0)]);
}

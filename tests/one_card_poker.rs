//! One-card poker: the vector form against the general per-pair game, CFR against CFR, and the
//! exact equilibrium against an exact best response.

use bluff::eval::{best_response, exploitability};
use bluff::problems::one_card_poker::contest_format::{parse_strategy, write_strategy, Precision};
use bluff::problems::one_card_poker::exact::solve_exact;
use bluff::problems::one_card_poker::game::one_card_poker;
use bluff::problems::one_card_poker::per_pair::ArenaCfr;
use bluff::problems::one_card_poker::vector::{CfrVariant, VectorCfr};
use bluff::problems::one_card_poker::{from_profile, score, to_profile, OcpParams, OcpStrategy};
use bluff::scalar::{rat, Rational};
use num_traits::Zero;

const OFFICIAL: &str = "1 open: check\n1 check: bet 0.5\n1 bet: fold\n1 check-bet: fold 0.9\n2 open: bet 0.8\n2 check: bet\n2 bet: call\n2 check-bet: call 0.8\n";

fn params(n: usize, ante: i64, bet: i64) -> OcpParams {
    OcpParams { n, ante, bet }
}

/// The vector-form score against the general game's exact best responses (src/eval.rs).
fn general_score(p: &OcpParams, s: &OcpStrategy<Rational>) -> (Rational, Rational) {
    let game = one_card_poker(p.n, p.ante, p.bet).unwrap();
    let profile = to_profile(&game, s, s);
    let br = best_response(&game, &profile, 1);
    let guaranteed = &game.constant_sum - &br.value;
    (guaranteed, rat(p.ante, 2))
}

#[test]
fn official_example_scores_the_same_in_vector_form_and_in_the_general_game() {
    let p = params(2, 2, 1);
    let s = parse_strategy(OFFICIAL, 2).unwrap();
    let v = score(&p, &s);
    let (general, optimum) = general_score(&p, &s);
    assert_eq!(v.average, general);
    assert_eq!(v.gap, &optimum - &general);
    // By hand. First seat: holding 1 the opponent's 2 bets after our check and we lose B with
    // the 10% calls (-1/10); holding 2 the opponent's 1 folds to bets and checks back (2). Second
    // seat: the opponent's 1 checks and folds to our sure bet (2); its 2 checks and calls our
    // half bluff (-1/2). Seats: 19/20 and 3/4, score 17/20, gap 3/20.
    assert_eq!(v.first_seat, rat(19, 20));
    assert_eq!(v.second_seat, rat(3, 4));
    assert_eq!(v.average, rat(17, 20));
    assert_eq!(v.gap, rat(3, 20));
}

#[test]
fn random_strategies_score_the_same_in_both_forms() {
    let mut seed = 12345u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        rat(((seed >> 33) % 11) as i64, 10)
    };
    for (n, a, b) in [(3, 2, 1), (4, 5, 3), (5, 1, 7)] {
        let p = params(n, a, b);
        let mut s = OcpStrategy::<Rational>::uniform(n);
        for part in s.parts_mut() {
            for x in part.iter_mut() {
                *x = next();
            }
        }
        let v = score(&p, &s);
        assert_eq!(v.average, general_score(&p, &s).0, "n={n} a={a} b={b}");
    }
}

#[test]
fn vector_cfr_matches_per_pair_cfr_iteration_by_iteration() {
    // Rounding differs between the two forms by an ulp here and there, and CFR amplifies such
    // differences over thousands of iterations (about 1e-15 after 1000 iterations, 1e-12 after
    // 4000 at N = 10): the match is checked over the first few hundred.
    for (n, a, b, iterations) in [(3, 2, 1, 300), (6, 3, 5, 300), (50, 20, 20, 60)] {
        let p = params(n, a, b);
        let game = one_card_poker(n, a, b).unwrap();
        let mut reference = ArenaCfr::new(&game);
        let mut vector = VectorCfr::new(p, CfrVariant::Vanilla);
        for it in 1..=iterations {
            reference.iterate();
            vector.iterate();
            let r = from_profile(&game, &reference.average(), 0);
            let o = from_profile(&game, &reference.average(), 1);
            let v = vector.average();
            for (k, (x, y)) in r.parts().iter().zip(v.parts()).enumerate() {
                for c in 0..n {
                    assert!(
                        (x[c] - y[c]).abs() < 1e-12,
                        "n={n} iteration {it}: situation {k} card {}: {} vs {}",
                        c + 1,
                        x[c],
                        y[c]
                    );
                }
            }
            // The opponent's strategy mirrors S's (symmetric game, symmetric start).
            for (x, y) in r.parts().iter().zip(o.parts()) {
                for c in 0..n {
                    assert!((x[c] - y[c]).abs() < 1e-12);
                }
            }
        }
        // And the general game's f64 exploitability agrees with the vector-form gap.
        let avg = vector.average();
        let e = exploitability(&game, &to_profile(&game, &avg, &avg));
        let g = score(&p, &avg).gap;
        let general_gap = p.ante as f64 / 2.0 - e.guaranteed[0];
        assert!((g - general_gap).abs() < 1e-12, "{g} vs {general_gap}");
    }
}

#[test]
fn exact_equilibria_certify_in_both_forms() {
    for (n, a, b) in [
        (2, 2, 1),
        (3, 2, 1),
        (5, 2, 1),
        (7, 20, 20),
        (10, 1, 20),
        (12, 20, 1),
    ] {
        let p = params(n, a, b);
        let sol = solve_exact(&p).unwrap_or_else(|e| panic!("n={n} a={a} b={b}: {e}"));
        assert!(score(&p, &sol.strategy).gap.is_zero());
        let (general, optimum) = general_score(&p, &sol.strategy);
        assert_eq!(general, optimum, "n={n} a={a} b={b}");
        // The exact text round-trips, and the decimal text scores within 1e-9.
        let exact_text = write_strategy(&sol.strategy, Precision::Exact);
        assert_eq!(parse_strategy(&exact_text, n).unwrap(), sol.strategy);
        let decimal =
            parse_strategy(&write_strategy(&sol.strategy, Precision::Decimal(18)), n).unwrap();
        let gap = score(&p, &decimal).gap;
        assert!(bluff::scalar::rational_to_f64(&gap) < 1e-9);
    }
}

#[test]
fn per_pair_reference_cfr_converges_on_kuhn_poker() {
    // The reference solver is generic; on Kuhn poker it must approach the known value -1/18.
    let game = bluff::games::kuhn::kuhn_poker().unwrap();
    let mut cfr = ArenaCfr::new(&game);
    cfr.run(3000);
    let e = exploitability(&game, &cfr.average());
    assert!(e.exploitability < 6e-3, "{}", e.exploitability);
    assert!((e.value[0] + 1.0 / 18.0).abs() < 5e-3, "{}", e.value[0]);
}

#[test]
fn vector_cfr_runs_at_one_hundred_thousand_cards() {
    // O(N) per iteration: a few iterations at N = 100000 stay cheap, and their gap agrees
    // with the exact rational score of the same strategy.
    let p = params(100_000, 2, 1);
    let mut cfr = VectorCfr::new(p, CfrVariant::Vanilla);
    cfr.run(3);
    let avg = cfr.average();
    let float_gap = score(&p, &avg).gap;
    assert!(float_gap > 0.0 && float_gap < 1.0);
    let small = params(50, 2, 1);
    let mut small_cfr = VectorCfr::new(small, CfrVariant::Vanilla);
    small_cfr.run(3);
    let s = small_cfr.average();
    let exact = OcpStrategy {
        open: s
            .open
            .iter()
            .map(|&x| Rational::from_float(x).unwrap())
            .collect(),
        check: s
            .check
            .iter()
            .map(|&x| Rational::from_float(x).unwrap())
            .collect(),
        bet: s
            .bet
            .iter()
            .map(|&x| Rational::from_float(x).unwrap())
            .collect(),
        check_bet: s
            .check_bet
            .iter()
            .map(|&x| Rational::from_float(x).unwrap())
            .collect(),
    };
    let exact_gap = bluff::scalar::rational_to_f64(&score(&small, &exact).gap);
    assert!((exact_gap - score(&small, &s).gap).abs() < 1e-12);
}

#[test]
fn three_cards_pot_two_bet_one_is_kuhn_poker() {
    // Centred on A/2, N=3, A=2, B=1 has Kuhn poker's payoffs (showdown +-1, called bet +-2,
    // fold +1 to the bettor), so the first seat is worth A/2 plus Kuhn's -1/18 for P1.
    let sol = solve_exact(&params(3, 2, 1)).unwrap();
    assert_eq!(sol.first_seat_value, rat(17, 18));
}

/// Two independent exact routes: the general engine's sequence-form LP on the per-pair game
/// must find the value A/2 (the closed form of a symmetric constant-sum game) and a strategy
/// whose exact vector-form score has gap 0, for every size and stake tried.
#[test]
fn sequence_form_lp_agrees_with_the_vector_exact_solver() {
    for (n, ante, bet) in [(2, 2, 1), (3, 2, 1), (5, 1, 3), (8, 20, 20), (12, 3, 7)] {
        let p = params(n, ante, bet);
        let game = one_card_poker(n, ante, bet).unwrap();
        let lp = bluff::exact::solve_exact(&game).unwrap();
        assert_eq!(lp.value, rat(ante, 2), "LP value at {n} {ante} {bet}");
        let from_lp = from_profile(&game, &lp.profile, 0);
        assert!(
            score(&p, &from_lp).gap.is_zero(),
            "LP strategy gap at {n} {ante} {bet}"
        );
        let vector = solve_exact(&p).unwrap();
        assert!(score(&p, &vector.strategy).gap.is_zero());
    }
}

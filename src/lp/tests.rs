use super::*;
use crate::exact::sequence_form::LpForm;
use crate::scalar::{int, rat};
use proptest::prelude::*;

fn r(n: i64) -> Rational {
    int(n)
}

/// max 3x + 2y, x + y <= 4, x + 3y <= 6, x <= 3 (optimum (3, 1) = 11).
fn textbook_lp() -> LinearProgram {
    let mut lp = LinearProgram::new(2);
    lp.set_objective(0, r(3));
    lp.set_objective(1, r(2));
    lp.add_constraint(vec![(0, r(1)), (1, r(1))], Relation::Le, r(4));
    lp.add_constraint(vec![(0, r(1)), (1, r(3))], Relation::Le, r(6));
    lp.add_constraint(vec![(0, r(1))], Relation::Le, r(3));
    lp
}

#[test]
fn textbook_lp_has_known_optimum_and_duals() {
    // max 3x + 2y, x + y <= 4, x + 3y <= 6, x <= 3: optimum (3, 1) = 11, duals (2, 0, 1) by hand.
    let lp = textbook_lp();
    let s = lp.solve().unwrap();
    assert_eq!(s.objective, r(11));
    assert_eq!(s.values, vec![r(3), r(1)]);
    assert_eq!(s.duals, vec![r(2), r(0), r(1)]);
}

#[test]
fn ge_eq_free_and_negative_rhs_rows() {
    // max -x - y with x free, y >= 0, x + y >= 2, x - y = -1: y = (x+1), 2x + 1 >= 2 -> x >= 1/2,
    // objective -(2x + 1) is best at x = 1/2: value -2; duals by hand: -1 and 0.
    let mut lp = LinearProgram::new(2);
    lp.set_free(0);
    lp.set_objective(0, r(-1));
    lp.set_objective(1, r(-1));
    lp.add_constraint(vec![(0, r(1)), (1, r(1))], Relation::Ge, r(2));
    lp.add_constraint(vec![(0, r(1)), (1, r(-1))], Relation::Eq, r(-1));
    let s = lp.solve().unwrap();
    assert_eq!(s.objective, r(-2));
    assert_eq!(s.values, vec![rat(1, 2), rat(3, 2)]);
    assert_eq!(s.duals, vec![r(-1), r(0)]);
}

#[test]
fn free_variable_goes_negative() {
    let mut lp = LinearProgram::new(1);
    lp.set_free(0);
    lp.set_objective(0, r(1));
    lp.add_constraint(vec![(0, r(2))], Relation::Le, r(-3));
    let s = lp.solve().unwrap();
    assert_eq!(s.values, vec![rat(-3, 2)]);
    assert_eq!(s.duals, vec![rat(1, 2)]);
}

#[test]
fn infeasible_and_unbounded_are_reported() {
    let mut lp = LinearProgram::new(1);
    lp.add_constraint(vec![(0, r(1))], Relation::Ge, r(2));
    lp.add_constraint(vec![(0, r(1))], Relation::Le, r(1));
    assert_eq!(lp.solve(), Err(LpError::Infeasible));

    let mut lp = LinearProgram::new(2);
    lp.set_objective(0, r(1));
    lp.add_constraint(vec![(0, r(1)), (1, r(-1))], Relation::Le, r(1));
    assert_eq!(lp.solve(), Err(LpError::Unbounded));
}

#[test]
fn bad_variable_index_is_an_error_not_a_panic() {
    let mut lp = LinearProgram::new(2);
    lp.add_constraint(vec![(5, r(1))], Relation::Le, r(1));
    let err = lp.solve().unwrap_err();
    assert!(matches!(err, LpError::BadVariable { var: 5, .. }));
    assert!(err.to_string().contains("constraint row 0"));
}

#[test]
fn redundant_equalities_and_degenerate_rows() {
    // x + y = 1 twice, 2x + 2y = 2: redundant rows keep an artificial at zero.
    let mut lp = LinearProgram::new(2);
    lp.set_objective(0, r(1));
    lp.add_constraint(vec![(0, r(1)), (1, r(1))], Relation::Eq, r(1));
    lp.add_constraint(vec![(0, r(1)), (1, r(1))], Relation::Eq, r(1));
    lp.add_constraint(vec![(0, r(2)), (1, r(2))], Relation::Eq, r(2));
    lp.add_constraint(vec![(0, r(1))], Relation::Le, r(1));
    let s = lp.solve().unwrap();
    assert_eq!(s.objective, r(1));
}

/// Rock-paper-scissors with a twist: payoff matrix [[0,-1,2],[1,0,-1],[-1,1,0]]; the row
/// player's maximin LP. Closed form: for this cyclic matrix the optimal mix is (1/3, 5/12, 1/4)
/// with value 1/12 (checked by hand: each column gives 1/12).
#[test]
fn matrix_game_value() {
    let a = [[0, -1, 2], [1, 0, -1], [-1, 1, 0]];
    let mut lp = LinearProgram::new(4);
    lp.set_free(3);
    lp.set_objective(3, r(1));
    for j in 0..3 {
        let mut row: Vec<(usize, Rational)> = (0..3).map(|i| (i, r(-a[i][j]))).collect();
        row.push((3, r(1)));
        lp.add_constraint(row, Relation::Le, r(0));
    }
    lp.add_constraint((0..3).map(|i| (i, r(1))).collect(), Relation::Eq, r(1));
    let s = lp.solve().unwrap();
    assert_eq!(s.objective, rat(1, 12));
    assert_eq!(s.values[..3], [rat(1, 4), rat(5, 12), rat(1, 3)]);
    // The duals of the column rows are the column player's optimal mix.
    let col: Vec<Rational> = s.duals[..3].to_vec();
    assert_eq!(col.iter().sum::<Rational>(), r(1));
}

/// Exact solution of a square system by Gaussian elimination (None when singular).
fn solve_square(mut a: Vec<Vec<Rational>>, mut b: Vec<Rational>) -> Option<Vec<Rational>> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n).find(|&i| !a[i][c].is_zero())?;
        a.swap(c, p);
        b.swap(c, p);
        for i in 0..n {
            if i != c && !a[i][c].is_zero() {
                let f = &a[i][c] / &a[c][c];
                for k in 0..n {
                    let d = &f * &a[c][k];
                    a[i][k] -= d;
                }
                let d = &f * &b[c];
                b[i] -= d;
            }
        }
    }
    Some((0..n).map(|i| &b[i] / &a[i][i]).collect())
}

/// Best objective over all vertices (every choice of `n` tight constraints among rows and
/// `x >= 0`), or None when no vertex is feasible: an algorithm independent of the simplex.
fn brute_force(n: usize, rows: &[(Vec<i64>, Relation, i64)], c: &[i64]) -> Option<Rational> {
    let mut all: Vec<(Vec<Rational>, Rational)> = rows
        .iter()
        .map(|(a, _, b)| (a.iter().map(|&v| r(v)).collect(), r(*b)))
        .collect();
    for i in 0..n {
        let mut e = vec![r(0); n];
        e[i] = r(1);
        all.push((e, r(0)));
    }
    let k = all.len();
    let mut best: Option<Rational> = None;
    for mask in 0u32..(1 << k) {
        if mask.count_ones() as usize != n {
            continue;
        }
        let chosen: Vec<usize> = (0..k).filter(|i| mask & (1 << i) != 0).collect();
        let a = chosen.iter().map(|&i| all[i].0.clone()).collect();
        let b = chosen.iter().map(|&i| all[i].1.clone()).collect();
        let Some(x) = solve_square(a, b) else {
            continue;
        };
        let feasible = x.iter().all(|v| !v.is_negative())
            && rows.iter().all(|(a, rel, b)| {
                let lhs: Rational = a.iter().zip(&x).map(|(&ai, xi)| r(ai) * xi).sum();
                match rel {
                    Relation::Le => lhs <= r(*b),
                    Relation::Ge => lhs >= r(*b),
                    Relation::Eq => lhs == r(*b),
                }
            });
        if feasible {
            let obj: Rational = c.iter().zip(&x).map(|(&ci, xi)| r(ci) * xi).sum();
            if best.as_ref().is_none_or(|b| obj > *b) {
                best = Some(obj);
            }
        }
    }
    best
}

fn relation() -> impl Strategy<Value = Relation> {
    prop_oneof![Just(Relation::Le), Just(Relation::Ge), Just(Relation::Eq)]
}

/// A random LP with 2-3 variables and a box `x_i <= 5` so it is bounded.
/// Integer rows `(coefficients, relation, rhs)`.
type IntRows = Vec<(Vec<i64>, Relation, i64)>;

fn bounded_lp() -> impl Strategy<Value = (usize, IntRows, Vec<i64>)> {
    (2usize..=3).prop_flat_map(|n| {
        let row = (prop::collection::vec(-4i64..=4, n), relation(), -6i64..=8);
        (
            Just(n),
            prop::collection::vec(row, 1..=4),
            prop::collection::vec(-5i64..=5, n),
        )
    })
}

fn build(n: usize, rows: &[(Vec<i64>, Relation, i64)], c: &[i64]) -> LinearProgram {
    let mut lp = LinearProgram::new(n);
    for (v, &cv) in c.iter().enumerate() {
        lp.set_objective(v, r(cv));
    }
    for (a, rel, b) in rows {
        lp.add_constraint(
            a.iter().enumerate().map(|(v, &x)| (v, r(x))).collect(),
            *rel,
            r(*b),
        );
    }
    lp
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The tableau optimum equals the best feasible vertex; infeasibility agrees. Duals are
    /// certified inside `solve_with` (feasible, complementary, equal objectives).
    #[test]
    fn tableau_matches_vertex_enumeration((n, mut rows, c) in bounded_lp()) {
        for i in 0..n {
            let mut e = vec![0; n];
            e[i] = 1;
            rows.push((e, Relation::Le, 5));
        }
        let lp = build(n, &rows, &c);
        let expected = brute_force(n, &rows, &c);
        match lp.solve() {
            Ok(s) => prop_assert_eq!(Some(s.objective), expected),
            Err(LpError::Infeasible) => prop_assert_eq!(expected, None),
            Err(e) => prop_assert!(false, "unexpected {e}"),
        }
    }
}

/// A random LP with 2-5 variables, some free, without a box: may be infeasible or unbounded.
fn open_lp() -> impl Strategy<Value = (usize, IntRows, Vec<i64>, Vec<bool>)> {
    (2usize..=5).prop_flat_map(|n| {
        let row = (prop::collection::vec(-4i64..=4, n), relation(), -6i64..=8);
        (
            Just(n),
            prop::collection::vec(row, 1..=6),
            prop::collection::vec(-5i64..=5, n),
            prop::collection::vec(prop::bool::weighted(0.2), n),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The float-guided method and the dense tableau agree exactly on objective and on
    /// infeasible/unbounded verdicts (both results pass the exact certificate in `solve_with`).
    #[test]
    fn float_guided_matches_tableau((n, rows, c, free) in open_lp()) {
        let mut lp = build(n, &rows, &c);
        for (v, &f) in free.iter().enumerate() {
            if f { lp.set_free(v); }
        }
        let a = lp.solve_with(&SolveOptions::new(Method::ExactTableau)).map(|(s, _)| s.objective);
        let b = lp.solve_with(&SolveOptions::new(Method::FloatThenExact)).map(|(s, _)| s.objective);
        prop_assert_eq!(a, b);
    }
}

#[test]
fn float_guided_repairs_to_exact_optimum_on_a_degenerate_program() {
    // Many tied, degenerate rows: all of x_i <= 1, sum x_i <= 3, x_i - x_j <= 0 for i < j.
    let n = 8;
    let mut lp = LinearProgram::new(n);
    for v in 0..n {
        lp.set_objective(v, rat(1, 1 + v as i64));
        lp.add_constraint(vec![(v, r(1))], Relation::Le, r(1));
        for w in v + 1..n {
            lp.add_constraint(vec![(v, r(1)), (w, r(-1))], Relation::Le, r(0));
        }
    }
    lp.add_constraint((0..n).map(|v| (v, r(1))).collect(), Relation::Le, r(3));
    let (a, _) = lp
        .solve_with(&SolveOptions::new(Method::ExactTableau))
        .unwrap();
    let (b, stats) = lp
        .solve_with(&SolveOptions::new(Method::FloatThenExact))
        .unwrap();
    assert_eq!(a.objective, b.objective);
    // Chebyshev's sum inequality: with weights decreasing and x non-decreasing,
    // sum w x <= mean(w) * sum x, so the optimum is x = 3/8 everywhere, worth (3/8) H_8.
    let expected: Rational = (0..n).map(|v| rat(1, 1 + v as i64) * rat(3, 8)).sum();
    assert_eq!(b.objective, expected);
    assert!(!stats.tableau_fallback);
}

/// A feasible, bounded random program of 10-30 variables in `[0, 3]` with sparse rows: big
/// enough that the sparse float simplex refactorises and meets ties.
/// Sparse integer rows `(variable, coefficient)`.
type SparseRows = Vec<Vec<(usize, i64)>>;

fn sparse_bounded_lp() -> impl Strategy<Value = (usize, SparseRows, Vec<i64>)> {
    (10usize..=30).prop_flat_map(|n| {
        let row = prop::collection::vec((0..n, -3i64..=3), 1..=4);
        (
            Just(n),
            prop::collection::vec(row, 5..=40),
            prop::collection::vec(-4i64..=4, n),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// On larger sparse programs the sparse float simplex's basis is repaired exactly without
    /// the tableau fallback, and the objective equals the dense exact tableau's.
    #[test]
    fn sparse_finder_matches_tableau_without_fallback((n, rows, c) in sparse_bounded_lp()) {
        let mut lp = LinearProgram::new(n);
        for (v, &cv) in c.iter().enumerate() {
            lp.set_objective(v, r(cv));
            lp.add_constraint(vec![(v, r(1))], Relation::Le, r(3));
        }
        for row in &rows {
            // x = 1 everywhere is feasible: the right-hand side is the row sum plus slack.
            let sum: i64 = row.iter().map(|(_, a)| a).sum();
            let coeffs = row.iter().map(|&(v, a)| (v, r(a))).collect();
            lp.add_constraint(coeffs, Relation::Le, r(sum + 1));
        }
        let (a, _) = lp.solve_with(&SolveOptions::new(Method::ExactTableau)).unwrap();
        let (b, stats) = lp.solve_with(&SolveOptions::new(Method::FloatThenExact)).unwrap();
        prop_assert_eq!(a.objective, b.objective);
        prop_assert!(!stats.tableau_fallback);
    }
}

#[test]
fn memory_budget_is_checked_before_solving() {
    let mut lp = LinearProgram::new(3);
    lp.set_objective(0, r(1));
    lp.add_constraint(vec![(0, r(1)), (1, r(1)), (2, r(1))], Relation::Le, r(1));
    lp.add_constraint(vec![(0, r(1)), (2, r(-1))], Relation::Eq, r(0));
    let size = lp.standard_size();
    assert_eq!(
        size,
        memory::LpSize {
            rows: 2,
            cols: 4,
            nonzeros: 6
        }
    );
    for method in [Method::ExactTableau, Method::FloatThenExact] {
        let tight = SolveOptions {
            max_memory: 100,
            ..SolveOptions::new(method)
        };
        let err = lp.solve_with(&tight).unwrap_err();
        assert!(matches!(err, LpError::TooBig { budget: 100, .. }), "{err}");
        let text = err.to_string();
        assert!(text.contains("2 rows x 4 columns, 6 non-zeros"), "{text}");
        let roomy = SolveOptions {
            max_memory: 1 << 30,
            ..SolveOptions::new(method)
        };
        assert_eq!(lp.solve_with(&roomy).unwrap().0.objective, rat(1, 2));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// A starting basis is only a hint: any hint (wrong length, repeated or singular columns
    /// (repaired with logicals), infeasible (shifted into its bounds), or a good one), with or
    /// without a fallback hint, gives the dense exact tableau's optimum.
    #[test]
    fn start_basis_hint_never_changes_the_answer(
        (n, rows, c, free) in open_lp(),
        hint in prop::collection::vec((0usize..3, 0usize..8), 0..8),
        fallback in prop::option::of(prop::collection::vec((0usize..3, 0usize..8), 0..8)),
    ) {
        let mut lp = build(n, &rows, &c);
        for (v, &f) in free.iter().enumerate() {
            if f {
                lp.set_free(v);
            }
        }
        let expected = lp.solve_with(&SolveOptions::new(Method::ExactTableau)).map(|(s, _)| s.objective);
        let entries = |hint: &[(usize, usize)]| {
            hint.iter()
                .map(|&(kind, i)| match kind {
                    0 => BasisEntry::Var(i),
                    1 => BasisEntry::NegVar(i),
                    _ => BasisEntry::Slack(i),
                })
                .collect()
        };
        lp.set_start_basis(entries(&hint));
        if let Some(fallback) = &fallback {
            lp.set_fallback_start_basis(entries(fallback));
        }
        let got = lp.solve_with(&SolveOptions::new(Method::FloatThenExact)).map(|(s, _)| s.objective);
        prop_assert_eq!(expected, got);
    }
}

/// The sequence-form pure crash basis (a pure strategy and its best response) is feasible and
/// non-singular from both of its starts (Kuhn: the best response to uniform play; liars dice
/// with 3 sides: the DCFR start) and in both players' programs, so the float simplex uses it
/// and needs no phase 1; the answers are the known -1/18 and 1/9 (`tests/lp_forms.rs` checks
/// the latter independently), negated in player 1's program.
#[test]
fn sequence_form_start_basis_is_feasible_and_used() {
    let kuhn = crate::games::kuhn::kuhn_poker().unwrap();
    let dice = crate::games::builtin("liars-dice(dice=1,sides=3)").unwrap();
    for (game, cfr_start, value) in [(&kuhn, false, rat(-1, 18)), (&dice, true, rat(1, 9))] {
        for primal in 0..2 {
            assert_eq!(
                crate::exact::sequence_form::start_choice(game, primal).is_some(),
                cfr_start
            );
            let sf_lp = crate::exact::sequence_form::build_lp_for(game, LpForm::Merged, primal);
            let sf = StandardForm::new(&sf_lp.lp);
            // Small LPs: the pure start alone (large ones put a support guess before it).
            assert!(sf.fallback_start.is_none());
            let start = sf.start.clone().expect("every hint entry names a column");
            // Feasible: the exact basic solution of the hint is non-negative.
            let cols: Vec<&[(usize, Rational)]> =
                start.iter().map(|&j| sf.cols[j].as_slice()).collect();
            let lu = lu::ExactLu::factor(sf.rows, &cols).expect("the crash basis is non-singular");
            assert!(lu.solve(&sf.b).iter().all(|v| !v.is_negative()));
            let (s, _) = sf_lp
                .lp
                .solve_with(&SolveOptions::new(Method::FloatThenExact))
                .unwrap();
            assert_eq!(sf_lp.value_for_player_0(&s.objective), value);
        }
    }
}

/// From `MIXED_START_FROM_ROWS` rows on the sequence-form LP starts from a guess at both
/// players' supports, with the pure start behind it: liars dice 1x6 (player 2's program,
/// 24 572 rows) has both hints, different, each naming one column per row, and the pure one
/// is feasible and non-singular as above. (`tests/lp_liars_dice.rs` solves it to OpenSpiel's
/// value through this route.)
#[test]
fn large_sequence_form_lps_guess_the_supports_first() {
    let game = crate::games::builtin("liars-dice(dice=1,sides=6)").unwrap();
    let sf_lp = crate::exact::sequence_form::build_lp_for(&game, LpForm::Merged, 1);
    let sf = StandardForm::new(&sf_lp.lp);
    assert!(sf.rows >= crate::exact::sequence_form::MIXED_START_FROM_ROWS);
    let guess = sf.start.clone().expect("the guess names a column per row");
    let pure = sf
        .fallback_start
        .clone()
        .expect("the pure start names a column per row");
    assert_eq!((guess.len(), pure.len()), (sf.rows, sf.rows));
    assert_ne!(guess, pure);
    let cols: Vec<&[(usize, Rational)]> = pure.iter().map(|&j| sf.cols[j].as_slice()).collect();
    let lu = lu::ExactLu::factor(sf.rows, &cols).expect("the pure start is non-singular");
    assert!(lu.solve(&sf.b).iter().all(|v| !v.is_negative()));
}

/// `options` with or without refinement and reconstruction.
fn guided(reconstruct: bool) -> SolveOptions<'static> {
    SolveOptions {
        reconstruct,
        ..SolveOptions::new(Method::FloatThenExact)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Reconstruction gives exactly the optimum of the exact LU route and of the dense exact
    /// tableau (unique objective; each solution passes the exact certificate inside `solve`).
    #[test]
    fn reconstruction_matches_exact_lu_and_tableau((n, rows, c, free) in open_lp()) {
        let mut lp = build(n, &rows, &c);
        for (v, f) in free.iter().enumerate() {
            if *f { lp.set_free(v); }
        }
        let tableau = lp.solve_with(&SolveOptions::new(Method::ExactTableau)).map(|(s, _)| s.objective);
        let on = lp.solve_with(&guided(true));
        let off = lp.solve_with(&guided(false));
        prop_assert_eq!(&on.clone().map(|(s, _)| s.objective), &tableau);
        prop_assert_eq!(&off.clone().map(|(s, _)| s.objective), &tableau);
        if let Ok((_, st)) = &off {
            prop_assert_ne!(st.route, ExactRoute::Reconstruction);
        }
    }
}

#[test]
fn reconstruction_certifies_the_textbook_lp_and_says_so() {
    let lp = textbook_lp();
    let (s, st) = lp.solve_with(&guided(true)).unwrap();
    assert_eq!(st.route, ExactRoute::Reconstruction);
    assert_eq!(st.exact_factorizations, 0);
    assert_eq!(s.values, vec![r(3), r(1)]);
    // The optimum is degenerate, so the duals depend on the basis: any optimal dual has
    // b^T y = 11 (checked by hand: (2, 0, 1) and (0, 2/3, 7/3) both are).
    let by: Rational = [r(4), r(6), r(3)]
        .iter()
        .zip(&s.duals)
        .map(|(b, y)| b * y)
        .sum();
    assert_eq!(by, r(11));
    let (_, st) = lp.solve_with(&guided(false)).unwrap();
    assert_eq!(st.route, ExactRoute::ExactLu);
}

#[test]
fn huge_denominators_fall_back_to_the_exact_lu_with_the_same_answer() {
    // Coefficients over two 40-bit primes per row: their scale overflows 64 bits, so
    // reconstruction cannot start; the exact route must still give the certified optimum.
    // max x + y, x/p + y/q <= 1, x/q + y/p <= 1 (p < q): optimum x = y = pq/(p+q).
    let (p, q) = (1_099_511_627_791i64, 1_099_511_627_847i64);
    let mut lp = LinearProgram::new(2);
    lp.set_objective(0, r(1));
    lp.set_objective(1, r(1));
    lp.add_constraint(vec![(0, rat(1, p)), (1, rat(1, q))], Relation::Le, r(1));
    lp.add_constraint(vec![(0, rat(1, q)), (1, rat(1, p))], Relation::Le, r(1));
    let (s, st) = lp.solve_with(&guided(true)).unwrap();
    assert_ne!(st.route, ExactRoute::Reconstruction);
    let xy = Rational::new(
        num_bigint::BigInt::from(p) * q,
        num_bigint::BigInt::from(p + q),
    );
    assert_eq!(s.values, vec![xy.clone(), xy.clone()]);
    assert_eq!(s.objective, &xy + &xy);
}

#[test]
fn a_basis_that_is_not_optimal_is_refused_by_reconstruction() {
    // The slack basis of the textbook LP is primal feasible but not optimal: its exact
    // solution is reconstructed, and refused for its positive reduced costs.
    let lp = textbook_lp();
    let sf = StandardForm::new(&lp);
    let slacks: Vec<usize> = (0..3).map(|i| sf.slack_col[i].unwrap()).collect();
    assert!(refine::solve_basis(&sf, &slacks).0.is_none());
    // The optimal basis: x, y and the slack of row 2 (x + 3y = 6 is tight; x <= 3 tight).
    let optimal = vec![0, 1, sf.slack_col[1].unwrap()];
    let s = refine::solve_basis(&sf, &optimal).0.unwrap();
    assert_eq!(s.x[..2].to_vec(), vec![r(3), r(1)]);
    assert_eq!(s.y, vec![r(2), r(0), r(1)]);
}

/// A row as `(coefficients, relation, right-hand side)`.
type RatRow = (Vec<(usize, Rational)>, Relation, Rational);

/// A random program (2-4 variables, some free, 1-5 rows over small integers) with the
/// structures presolve reduces planted in it: copies of columns scaled by 1-3 (objective
/// too), copies of rows scaled by 1-3 with a looser or equal right-hand side, an equation
/// `x_new = x_old` for a new variable, a free zero-cost variable linking two `<=` rows
/// with opposite signs, and a realization-plan equation `x_parent = x_a + x_b + x_c` whose
/// parent also enters one row and the objective (substituted by the aggregator).
fn presolvable_lp() -> impl Strategy<Value = LinearProgram> {
    (2usize..=4).prop_flat_map(|n| {
        let row = (prop::collection::vec(-3i64..=3, n), relation(), -4i64..=6);
        (
            prop::collection::vec(row, 1..=5),
            prop::collection::vec(-4i64..=4, n),
            prop::collection::vec(prop::bool::weighted(0.2), n),
            prop::collection::vec((0usize..4, 1i64..=3), 0..=3),
            prop::collection::vec((0usize..5, 1i64..=3, 0i64..=2), 0..=3),
            prop::option::of(0usize..4),
            prop::option::of((0usize..5, 0usize..5)),
            prop::option::of((
                (0usize..4, 0usize..4, 0usize..4),
                0usize..5,
                -3i64..=3,
                -3i64..=3,
            )),
        )
            .prop_map(
                move |(rows, c, free, col_copies, row_copies, eq, link, plan)| {
                    let extra = col_copies.len() + usize::from(eq.is_some()) + 2;
                    let mut lp = LinearProgram::new(n + extra);
                    for (v, &cv) in c.iter().enumerate() {
                        lp.set_objective(v, r(cv));
                        if free[v] {
                            lp.set_free(v);
                        }
                    }
                    let mut rows: Vec<RatRow> = rows
                        .iter()
                        .map(|(a, rel, b)| {
                            let coeffs = a.iter().enumerate().map(|(v, &x)| (v, r(x))).collect();
                            (coeffs, *rel, r(*b))
                        })
                        .collect();
                    let mut next = n;
                    for &(v, s) in &col_copies {
                        let v = v % n;
                        for row in rows.iter_mut() {
                            if let Some(a) = row.0.iter().find(|e| e.0 == v).map(|e| e.1.clone()) {
                                row.0.push((next, a * r(s)));
                            }
                        }
                        lp.set_objective(next, r(c[v] * s));
                        if free[v] {
                            lp.set_free(next);
                        }
                        next += 1;
                    }
                    let base = rows.len();
                    for &(k, s, slack) in &row_copies {
                        let (a, rel, b) = rows[k % base].clone();
                        let loosen = match rel {
                            Relation::Le => r(slack),
                            Relation::Ge => r(-slack),
                            Relation::Eq => r(0),
                        };
                        let scaled = a.iter().map(|(v, x)| (*v, x * r(s))).collect();
                        rows.push((scaled, rel, (b + loosen) * r(s)));
                    }
                    if let Some(v) = eq {
                        let v = v % n;
                        rows.push((vec![(next, r(1)), (v, r(-1))], Relation::Eq, r(0)));
                        if free[v] {
                            lp.set_free(next);
                        }
                        next += 1;
                    }
                    if let Some((i, j)) = link {
                        let (i, j) = (i % rows.len(), j % rows.len());
                        if i != j && rows[i].1 == Relation::Le && rows[j].1 == Relation::Le {
                            rows[i].0.push((next, r(1)));
                            rows[j].0.push((next, r(-2)));
                        }
                        lp.set_free(next);
                    }
                    next += 1;
                    if let Some(((a, b, d), k, coeff, cost)) = plan {
                        let k = k % rows.len();
                        rows[k].0.push((next, r(coeff)));
                        lp.set_objective(next, r(cost));
                        let children = [a, b, d].map(|v| (v % n, r(-1)));
                        let mut eq = vec![(next, r(1))];
                        eq.extend(children.iter().filter(|e| !free[e.0]).cloned());
                        rows.push((eq, Relation::Eq, r(0)));
                    }
                    for (a, rel, b) in rows {
                        lp.add_constraint(a, rel, b);
                    }
                    lp
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// With presolve (as chosen, and forced) or without, the float-guided method agrees
    /// exactly with the tableau on the objective and on infeasible/unbounded verdicts (every
    /// solution is certified on the original program, so presolve's way back is checked too).
    #[test]
    fn presolve_keeps_the_exact_optimum(lp in presolvable_lp()) {
        let tableau = lp.solve_with(&SolveOptions::new(Method::ExactTableau)).map(|(s, _)| s.objective);
        let options = SolveOptions::new(Method::FloatThenExact);
        for mode in [Presolve::Auto, Presolve::Always, Presolve::Off] {
            let got = lp.solve_presolving(&options, mode).map(|(s, _)| s.objective);
            prop_assert_eq!(&got, &tableau, "{:?}", mode);
        }
    }
}

/// Parallel columns and rows, and what they cascade into, are removed, and the answer is
/// the tableau's: max x0 + 2 x1 + 4 x2 (x2's column twice x1's), rows x0 + x1 + 2 x2 <= 4
/// and twice it with a looser right-hand side, x1 + x2 + x0 <= 3 (optimum 8 at x1 + 2 x2 = 4,
/// x0 = 0: the first row binds, by the 2:1 ratio of objective to row coefficient).
#[test]
fn presolve_merges_parallel_columns_and_drops_parallel_rows() {
    let mut lp = LinearProgram::new(3);
    lp.set_objective(0, r(1));
    lp.set_objective(1, r(2));
    lp.set_objective(2, r(4));
    lp.add_constraint(vec![(0, r(1)), (1, r(1)), (2, r(2))], Relation::Le, r(4));
    lp.add_constraint(vec![(0, r(2)), (1, r(2)), (2, r(4))], Relation::Le, r(9));
    lp.add_constraint(vec![(0, r(1)), (1, r(1)), (2, r(2))], Relation::Le, r(5));
    let pre = presolve::presolve(&lp, false).expect("reduces");
    let (rows, cols) = pre.removed();
    assert!(rows >= 2 && cols >= 1, "{rows} rows, {cols} columns");
    let (s, st) = lp
        .solve_with(&SolveOptions::new(Method::FloatThenExact))
        .unwrap();
    assert_eq!(s.objective, r(8));
    assert_eq!((st.presolve_rows, st.presolve_cols), (rows, cols));
    let (t, _) = lp
        .solve_with(&SolveOptions::new(Method::ExactTableau))
        .unwrap();
    assert_eq!(t.objective, r(8));
}

/// Goofspiel with descending points has actions with the same consequences (the game is
/// decided before its last tricks): presolve takes over a third of its LP, carries the
/// crash basis over, and the value (0 by symmetry) is the one solved without presolve.
#[test]
fn goofspiel_presolves_with_its_crash_basis() {
    let game = crate::games::builtin("goofspiel(cards=4,order=descending)").unwrap();
    let sf = crate::exact::sequence_form::build_lp(&game);
    let pre = presolve::presolve(&sf.lp, false).expect("reduces");
    let (rows, _) = pre.removed();
    assert!(3 * rows > sf.lp.num_constraints(), "{rows} rows removed");
    assert!(pre.lp.start.is_some(), "crash basis carried");
    let options = SolveOptions::new(Method::FloatThenExact);
    let (with, _) = sf.lp.solve_presolving(&options, Presolve::Auto).unwrap();
    let (without, _) = sf.lp.solve_presolving(&options, Presolve::Off).unwrap();
    assert_eq!(with.objective, without.objective);
    assert!(with.objective.is_zero());
}

/// Sequence-form LPs whose values for the first player are known independently: Kuhn -1/18
/// (closed form), Leduc (OpenSpiel's float value; tests/lp_leduc.rs pins the fraction),
/// one-card poker with ante 2 and bet 1 worth A/2 = 1 (closed form), liars dice 1x4 1/16
/// (OpenSpiel's LP), goofspiel 4 with descending points 0 (a symmetric game).
const KNOWN_GAME_VALUES: [(&str, &str); 5] = [
    ("kuhn", "-1/18"),
    (
        "leduc",
        "-1454920850547486749701863871533/16995463438839962469905132501930",
    ),
    ("one-card-poker(n=50,a=2,b=1)", "1"),
    ("liars-dice(dice=1,sides=4)", "1/16"),
    ("goofspiel(cards=4,order=descending)", "0"),
];

/// Presolve forced on the [`KNOWN_GAME_VALUES`] LPs: the value with presolve is the known one
/// and the one without, and where presolve reduces, the postsolved point is certified on the
/// original program inside `solve_presolving`.
#[test]
fn presolved_game_lps_keep_their_known_values() {
    let options = SolveOptions::new(Method::FloatThenExact);
    let mut reduced = 0;
    for (spec, value) in KNOWN_GAME_VALUES {
        let game = crate::games::builtin(spec).unwrap();
        let sf = crate::exact::sequence_form::build_lp(&game);
        let value = crate::scalar::parse_rational(value).unwrap();
        let (with, st) = sf.lp.solve_presolving(&options, Presolve::Always).unwrap();
        let (without, _) = sf.lp.solve_presolving(&options, Presolve::Off).unwrap();
        assert_eq!(with.objective, value, "{spec}");
        assert_eq!(without.objective, value, "{spec}");
        if st.presolve_rows + st.presolve_cols > 0 {
            reduced += 1;
        }
    }
    assert!(reduced >= 2, "presolve reduced only {reduced} of the games");
}

/// The clean-up's answer to a stall (perturb around the basis, solve, drop the perturbation,
/// repair) forced on every clean-up: on the [`KNOWN_GAME_VALUES`] LPs the certified values
/// stay the known ones, and on 300 highly degenerate random programs (right-hand sides 0 and
/// 1, boxes `x <= 1`) the optimum is the exact tableau's.
#[test]
fn clean_up_perturbation_keeps_the_exact_optimum() {
    use super::revised::test_hooks::{PERTURBATIONS, STALL_LIMIT};
    let options = SolveOptions::new(Method::FloatThenExact);
    STALL_LIMIT.with(|c| c.set(Some(0)));
    PERTURBATIONS.with(|c| c.set(0));
    for (spec, value) in KNOWN_GAME_VALUES {
        let game = crate::games::builtin(spec).unwrap();
        let sf = crate::exact::sequence_form::build_lp(&game);
        let value = crate::scalar::parse_rational(value).unwrap();
        for presolve in [Presolve::Always, Presolve::Off] {
            let (solved, _) = sf.lp.solve_presolving(&options, presolve).unwrap();
            assert_eq!(solved.objective, value, "{spec}");
        }
    }
    let mut seed = 0x1234_5678_9ABC_DEF1u64;
    let mut next = move |k: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % k) as i64
    };
    for _ in 0..300 {
        let n = 10 + next(30) as usize;
        let mut lp = LinearProgram::new(n);
        for v in 0..n {
            lp.set_objective(v, r(next(7) - 2));
            lp.add_constraint(vec![(v, r(1))], Relation::Le, r(1));
        }
        for _ in 0..n + next(n as u64) as usize {
            let row: Vec<(usize, Rational)> = (0..2 + next(3))
                .map(|_| (next(n as u64) as usize, r(next(7) - 3)))
                .collect();
            lp.add_constraint(row, Relation::Le, r(next(2)));
        }
        let a = lp
            .solve_with(&SolveOptions::new(Method::ExactTableau))
            .map(|(s, _)| s.objective);
        let b = lp.solve_with(&options).map(|(s, _)| s.objective);
        assert_eq!(a, b);
    }
    STALL_LIMIT.with(|c| c.set(None));
    let perturbations = PERTURBATIONS.with(|c| c.get());
    // Eight rounds per solve at most: every solve above took the path.
    assert!(
        perturbations >= 300,
        "only {perturbations} clean-ups stalled"
    );
}

/// The aggregator substitutes realization-plan equations `x_parent = sum x_child` (the
/// parent's bound follows from its children's): on Leduc, whose plan equations are the only
/// reductions, presolve runs by itself, removes over a seventh of the rows (253 of 1562), carries the crash
/// basis over, and the certified value is the one without presolve (OpenSpiel's float value
/// to 1e-12; tests/lp_leduc.rs pins the fraction).
#[test]
fn leduc_aggregates_its_plan_equations() {
    let game = crate::games::builtin("leduc").unwrap();
    let sf = crate::exact::sequence_form::build_lp(&game);
    let pre = presolve::presolve(&sf.lp, false).expect("reduces");
    let (rows, cols) = pre.removed();
    assert!(7 * rows > sf.lp.num_constraints(), "{rows} rows removed");
    assert_eq!(rows, cols);
    assert!(pre.lp.start.is_some(), "crash basis carried");
    let options = SolveOptions::new(Method::FloatThenExact);
    let (with, st) = sf.lp.solve_presolving(&options, Presolve::Auto).unwrap();
    let (without, _) = sf.lp.solve_presolving(&options, Presolve::Off).unwrap();
    assert_eq!(st.presolve_rows, rows);
    assert_eq!(with.objective, without.objective);
    let value = crate::scalar::rational_to_f64(&with.objective);
    assert!((value + 0.085606424078).abs() < 1e-12, "{value}");
}

/// The aggregator on a small program with a hand-computed optimum: variables `p, a, b, c >= 0`,
/// `p = a + b + c` (a realization-plan equation: `p >= 0` follows), `p <= 4`, `a + c <= 3`,
/// maximise `2a + b + 3c - p`, i.e. `a + 2c` over `a + b + c <= 4`, `a + c <= 3`: 6 at `c = 3`.
/// Presolve substitutes `p` out (one row and one column fewer) and the certified optimum is
/// the tableau's.
#[test]
fn aggregator_substitutes_a_plan_equation() {
    let mut lp = LinearProgram::new(4);
    for (v, c) in [(0, -1), (1, 2), (2, 1), (3, 3)] {
        lp.set_objective(v, r(c));
    }
    lp.add_constraint(
        vec![(0, r(1)), (1, r(-1)), (2, r(-1)), (3, r(-1))],
        Relation::Eq,
        r(0),
    );
    lp.add_constraint(vec![(0, r(1))], Relation::Le, r(4));
    lp.add_constraint(vec![(1, r(1)), (3, r(1))], Relation::Le, r(3));
    let pre = presolve::presolve(&lp, true).expect("reduces");
    let (rows, cols) = pre.removed();
    assert!(rows >= 1 && cols >= 1, "{rows} rows, {cols} columns");
    assert!(pre.lp.num_vars() <= 3);
    let options = SolveOptions::new(Method::FloatThenExact);
    let (s, _) = lp.solve_presolving(&options, Presolve::Always).unwrap();
    assert_eq!(s.objective, r(6));
    let (t, _) = lp
        .solve_with(&SolveOptions::new(Method::ExactTableau))
        .unwrap();
    assert_eq!(t.objective, r(6));
}

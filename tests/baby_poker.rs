//! Baby poker facts (`docs/problems.md`), each confirmed by an independent route: the published
//! value, hand derivations from the closed form, exact best responses in the extensive game, and
//! a second, brute-force vertex enumeration written here.

use bluff::eval::{best_response, exploitability};
use bluff::matrix::normal_form::{reduced_normal_form, DEFAULT_MAX_STRATEGIES};
use bluff::problems::baby_poker::*;
use bluff::scalar::{int, rat, Rational};
use num_traits::{One, Signed, Zero};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The default analysis, computed once for all tests of this file.
fn analysis() -> &'static Analysis {
    static CELL: OnceLock<Analysis> = OnceLock::new();
    CELL.get_or_init(|| analyse(6, 2, &mut |_| {}).expect("analysis succeeds"))
}

fn q(v: &[(i64, i64)]) -> Vec<Rational> {
    v.iter().map(|&(n, d)| rat(n, d)).collect()
}

#[test]
fn normal_form_of_the_tree_equals_the_formula_matrix() {
    for (sides, raise) in [(6, 2), (3, 3), (4, 1)] {
        let g = baby_poker(sides, raise).unwrap();
        let nf = reduced_normal_form(&g, DEFAULT_MAX_STRATEGIES).unwrap();
        let m = pure_matrix(sides, raise);
        // Errors on any differing entry; both lists have 2^sides strategies.
        normal_form_matches_formula(&g, &nf, &m, sides).unwrap();
        assert_eq!(nf.matrix.num_rows(), 1 << sides);
    }
    // A corrupted matrix is caught.
    let g = baby_poker(6, 2).unwrap();
    let nf = reduced_normal_form(&g, DEFAULT_MAX_STRATEGIES).unwrap();
    let mut m = pure_matrix(6, 2);
    m.payoff[5][9] += rat(1, 36);
    assert!(normal_form_matches_formula(&g, &nf, &m, 6).is_err());
}

#[test]
fn no_saddle_point_because_pure_security_levels_bracket_the_value() {
    let a = analysis();
    assert!(a.pure.saddle_points.is_empty());
    // A saddle point would make max-min = min-max = value; the LP value lies strictly between.
    assert!(a.pure.row_security < a.normal_form.value);
    assert!(a.normal_form.value < a.pure.col_security);
}

#[test]
fn value_is_five_fiftyfourths_by_four_lps() {
    let a = analysis();
    let v = rat(5, 54);
    assert_eq!(a.normal_form.value, v);
    assert_eq!(a.behavioural.value_a, v);
    assert_eq!(a.behavioural.value_b, v);
    assert_eq!(a.sequence_form_value, v);
}

#[test]
fn a_optimum_is_unique_and_matches_the_published_strategy() {
    let a = analysis();
    let p = q(&[(2, 3), (0, 1), (0, 1), (0, 1), (1, 1), (1, 1)]);
    assert_eq!(a.behavioural.p, p);
    // Exact LPs minimising and maximising each p_i over A's optimal set agree.
    for (i, (lo, hi)) in a.a_set.bounds.iter().enumerate() {
        assert_eq!((lo, hi), (&p[i], &p[i]), "die {}", i + 1);
    }
    assert_eq!(a.a_set.vertices, vec![p.clone()]);
    // In mixed strategies: 2/3 on "raise on 1, 5, 6", 1/3 on "raise on 5, 6".
    assert_eq!(a.a_mixed.vertices.len(), 1);
    let x = &a.a_mixed.vertices[0];
    assert_eq!(x[0b100011], rat(2, 3));
    assert_eq!(x[0b000011], rat(1, 3));
    // The extensive game agrees: against p, B's best response holds A to exactly 5/54.
    let g = baby_poker(6, 2).unwrap();
    let prof = behavioural_profile(&g, &p, &a.behavioural.q).unwrap();
    assert!(exploitability(&g, &prof).nash_conv.is_zero());
}

/// B's optimal set derived by hand from the closed form (q1 = 1, q5 = q6 = 0, and A must be
/// indifferent or worse off raising on each die): with x, y, z the folds on 2, 3, 4,
/// x + y + z = 4/3, 0 <= x, y <= 1, 0 <= z <= 2/3 (A's 4 must not raise) and y + 2z <= 5/3
/// (A's 3 must not bluff-raise). The hexagon of the first constraints loses its vertex
/// (0, 2/3, 2/3) to the last one and gains (1/3, 1/3, 2/3).
fn hand_derived_b_vertices() -> BTreeSet<Vec<Rational>> {
    let xyz = [
        [(1, 1), (1, 3), (0, 1)],
        [(1, 3), (1, 1), (0, 1)],
        [(1, 1), (0, 1), (1, 3)],
        [(0, 1), (1, 1), (1, 3)],
        [(2, 3), (0, 1), (2, 3)],
        [(1, 3), (1, 3), (2, 3)],
    ];
    xyz.iter()
        .map(|t| {
            let mut v = vec![int(1)];
            v.extend(t.iter().map(|&(n, d)| rat(n, d)));
            v.extend([int(0), int(0)]);
            v
        })
        .collect()
}

#[test]
fn b_behavioural_optimal_set_matches_hand_derivation_and_the_tree() {
    let a = analysis();
    let b = &a.b_set;
    assert_eq!(b.dimension, 2);
    let found: BTreeSet<Vec<Rational>> = b.vertices.iter().cloned().collect();
    assert_eq!(found, hand_derived_b_vertices());
    let ranges: Vec<(Rational, Rational)> = [(1, 1), (0, 1), (0, 1), (0, 2), (0, 0), (0, 0)]
        .iter()
        .map(|&(lo, hi)| (int(lo), if hi == 2 { rat(2, 3) } else { int(hi) }))
        .collect();
    assert_eq!(b.bounds, ranges);
    // Every vertex holds A to exactly 5/54 in the extensive game (exact best response).
    let g = baby_poker(6, 2).unwrap();
    for q in &b.vertices {
        let prof = behavioural_profile(&g, &a.behavioural.p, q).unwrap();
        assert_eq!(best_response(&g, &prof, 0).value, rat(5, 54));
    }
    // The description without y + 2z <= 5/3 admits (x, y, z) = (0, 2/3, 2/3), which
    // the tree shows is exploitable: A raising on 3 earns 1/9 > 5/54.
    let bad = q(&[(1, 1), (0, 1), (2, 3), (2, 3), (0, 1), (0, 1)]);
    let prof = behavioural_profile(&g, &a.behavioural.p, &bad).unwrap();
    assert_eq!(best_response(&g, &prof, 0).value, rat(1, 9));
}

/// Solves the square system `rows . y = rhs` exactly; `None` if singular.
fn solve(mut rows: Vec<(Vec<Rational>, Rational)>) -> Option<Vec<Rational>> {
    let n = rows[0].0.len();
    for c in 0..n {
        let p = (c..rows.len()).find(|&i| !rows[i].0[c].is_zero())?;
        rows.swap(c, p);
        let lead = rows[c].0[c].clone();
        let pivot = (
            rows[c].0.iter().map(|a| a / &lead).collect::<Vec<_>>(),
            &rows[c].1 / &lead,
        );
        for (i, row) in rows.iter_mut().enumerate() {
            if i != c {
                let f = row.0[c].clone();
                for (a, b) in row.0.iter_mut().zip(&pivot.0) {
                    *a -= &f * b;
                }
                row.1 -= &f * &pivot.1;
            }
        }
        rows[c] = pivot;
    }
    Some(rows.into_iter().map(|r| r.1).collect())
}

#[test]
fn b_mixed_vertices_agree_with_a_brute_force_enumeration() {
    let a = analysis();
    let set = &a.b_mixed;
    // The usable pure strategies: fold on 1, call on 5 and 6, anything on 2, 3, 4.
    let kept: Vec<usize> = (0..8).map(|k| 0b100000 | (k << 2)).collect();
    assert_eq!(set.kept, kept);
    // Brute force over the hand-derived marginal constraints: y >= 0 (8), x, y, z in the
    // box, y + 2z <= 5/3 (7 more); equalities sum y = 1 and x + y + z = 4/3; every 6 of the
    // 15 inequalities taken as equalities.
    let bit = |k: usize, d: usize| -> Rational { int(((k >> (5 - d)) & 1) as i64) };
    let marg = |d: usize| -> Vec<Rational> { kept.iter().map(|&k| bit(k, d)).collect() };
    let (x, y, z) = (marg(1), marg(2), marg(3));
    let neg = |v: &Vec<Rational>| -> Vec<Rational> { v.iter().map(|a| -a).collect() };
    let mut ineqs: Vec<(Vec<Rational>, Rational)> = (0..8)
        .map(|i| {
            let mut e = vec![int(0); 8];
            e[i] = int(-1);
            (e, int(0))
        })
        .collect();
    for (v, hi) in [(&x, int(1)), (&y, int(1)), (&z, rat(2, 3))] {
        ineqs.push((neg(v), int(0)));
        ineqs.push((v.clone(), hi));
    }
    ineqs.push(((0..8).map(|i| &y[i] + int(2) * &z[i]).collect(), rat(5, 3)));
    let eqs = vec![
        (vec![int(1); 8], int(1)),
        ((0..8).map(|i| &x[i] + &y[i] + &z[i]).collect(), rat(4, 3)),
    ];
    let mut brute: BTreeSet<Vec<Rational>> = BTreeSet::new();
    let m = ineqs.len();
    let mut idx = [0usize, 1, 2, 3, 4, 5];
    loop {
        let mut rows = eqs.clone();
        rows.extend(idx.iter().map(|&i| ineqs[i].clone()));
        if let Some(sol) = solve(rows) {
            let feasible = ineqs.iter().all(|(c, b)| {
                let lhs: Rational = c.iter().zip(&sol).map(|(a, v)| a * v).sum();
                lhs <= *b
            });
            if feasible {
                brute.insert(sol);
            }
        }
        // Next 6-subset in lexicographic order.
        let mut i = 6;
        while i > 0 && idx[i - 1] == m - 6 + i - 1 {
            i -= 1;
        }
        if i == 0 {
            break;
        }
        idx[i - 1] += 1;
        for j in i..6 {
            idx[j] = idx[j - 1] + 1;
        }
    }
    let found: BTreeSet<Vec<Rational>> = set
        .vertices
        .iter()
        .map(|v| kept.iter().map(|&k| v[k].clone()).collect())
        .collect();
    assert_eq!(found, brute);
    assert_eq!(found.len(), 23);
    // Each vertex is an optimal mixed strategy of the 64x64 game: no row beats the value.
    for v in &set.vertices {
        let worst = a.matrix.col_mix_payoffs(v).into_iter().max().unwrap();
        assert_eq!(worst, rat(5, 54));
        assert!(v.iter().all(|w| !w.is_negative()));
        assert!(v.iter().sum::<Rational>().is_one());
    }
}

#[test]
fn small_variants_solve_and_certify() {
    // 3 sides, raise 3: every LP route must agree (analyse fails otherwise) and the
    // behavioural optimum must be an exact equilibrium of the tree.
    let a = analyse(3, 3, &mut |_| {}).unwrap();
    let g = baby_poker(3, 3).unwrap();
    let prof = behavioural_profile(&g, &a.behavioural.p, &a.behavioural.q).unwrap();
    let e = exploitability(&g, &prof);
    assert!(e.nash_conv.is_zero());
    assert_eq!(e.value[0], a.normal_form.value);
    assert!(analyse(9, 2, &mut |_| {}).is_err());
    assert!(analyse(6, 0, &mut |_| {}).is_err());
}

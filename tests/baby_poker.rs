//! Baby poker facts (GAMES.md section 3), each confirmed by an independent route.

use bluff::eval::exploitability;
use bluff::game::Game;
use bluff::games::baby_poker::*;
use bluff::scalar::{int, rat, Rational};
use bluff::solve::normal_form::{reduced_normal_form, DEFAULT_MAX_STRATEGIES};
use bluff::strategy::ExactProfile;
use num_traits::{One, Zero};

fn profile(game: &Game, p: &[Rational], q: &[Rational]) -> ExactProfile {
    let mut prof = ExactProfile::uniform(game);
    for (player, v) in [(0, p), (1, q)] {
        for (d, x) in v.iter().enumerate() {
            let label = if player == 0 {
                a_infoset_label(d + 1)
            } else {
                b_infoset_label(d + 1)
            };
            let id = game.find_infoset(player, &label).unwrap();
            let r = game.infosets[player][id].action_range();
            prof.probs[player][r.start] = Rational::one() - x;
            prof.probs[player][r.start + 1] = x.clone();
        }
    }
    prof
}

#[test]
fn explore() {
    let g = baby_poker(6, 2).unwrap();
    let m = pure_matrix(6, 2);
    let nf = reduced_normal_form(&g, DEFAULT_MAX_STRATEGIES).unwrap();
    println!("identity {:?}", normal_form_matches_formula(&g, &nf, &m, 6));
    let pa = m.pure_analysis();
    println!(
        "saddles {} {} {}",
        pa.saddle_points.len(),
        pa.row_security,
        pa.col_security
    );
    let t = std::time::Instant::now();
    let s = m.solve().unwrap();
    println!("nf value {} {:?}", s.value, t.elapsed());
    let b = behavioural_lp(6, 2).unwrap();
    println!("beh {} {} {:?} {:?}", b.value_a, b.value_b, b.p, b.q);
    let t = std::time::Instant::now();
    let ad = a_optimal_polytope(6, 2, &s.value).describe().unwrap();
    println!(
        "A p-set {:?} {:?} {:?}",
        ad.vertices,
        ad.lps_solved,
        t.elapsed()
    );
    let t = std::time::Instant::now();
    let bd = b_optimal_polytope(6, 2, &s.value).describe().unwrap();
    println!(
        "B q-set dim {} verts {:?} facets {:?} hull {:?} {:?} lps {}",
        bd.dimension,
        bd.vertices,
        bd.facets,
        bd.affine_hull,
        t.elapsed(),
        bd.lps_solved
    );
    let t = std::time::Instant::now();
    let am = m.optimal_set(&s, 0).unwrap();
    println!(
        "A mixed {} {:?} lps {}",
        am.vertices.len(),
        t.elapsed(),
        am.description.lps_solved
    );
    let t = std::time::Instant::now();
    let bm = m.optimal_set(&s, 1).unwrap();
    println!(
        "B mixed {} kept {} {:?} lps {}",
        bm.vertices.len(),
        bm.kept.len(),
        t.elapsed(),
        bm.description.lps_solved
    );
    let e = exploitability(&g, &profile(&g, &b.p, &b.q));
    println!("nashconv {}", e.nash_conv);
    let _ = (int(0), rat(1, 2), Rational::zero());
}

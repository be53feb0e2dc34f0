//! Every extreme Nash equilibrium of a bimatrix game, exactly, by vertex enumeration of the
//! best-response polytopes (as Gambit's `enummixed` and lrsnash do), with the maximal cliques
//! of interchangeable equilibria.
//!
//! With the payoffs shifted positive (`A`, `B` for the row and column player), the polytopes
//! are `P = {x >= 0 : B^T x <= 1}` and `Q = {y >= 0 : A y <= 1}`. A point of `P` has label `i`
//! where `x_i = 0` and label `m + j` where `(B^T x)_j = 1`; a point of `Q` has label `i` where
//! `(A y)_i = 1` and label `m + j` where `y_j = 0`. The extreme equilibria are the pairs of
//! non-zero vertices whose labels together are all `m + n` (normalised to sum 1): every
//! vertex of both polytopes is found by a depth-first walk over their lexicographically
//! feasible bases (the ratio test's ties broken by a perturbation, as lrs does, so a
//! degenerate vertex is reached through few of its bases), in exact rationals. Two equilibria are interchangeable when both their mixed pairs
//! are equilibria; the maximal sets of such vertex pairs are the maximal complete bipartite
//! subgraphs (cliques) of the pairs, and the set of all equilibria is the union of the convex
//! hulls of the cliques.

use crate::format::nfg::NfgGame;
use crate::game::Game;
use crate::matrix::normal_form::{check_normal_form_size, reduced_strategies};
use crate::scalar::Rational;
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeSet, HashMap, HashSet};
use thiserror::Error;

/// A two-player game in strategic form with both players' exact payoffs.
#[derive(Clone, Debug, PartialEq)]
pub struct Bimatrix {
    /// The row player's strategy labels.
    pub rows: Vec<String>,
    /// The column player's strategy labels.
    pub cols: Vec<String>,
    /// `payoff[p][i][j]`: player `p`'s payoff when row `i` meets column `j`.
    pub payoff: [Vec<Vec<Rational>>; 2],
}

/// One extreme equilibrium.
#[derive(Clone, Debug, PartialEq)]
pub struct BimatrixEquilibrium {
    /// The row player's mixed strategy.
    pub p1: Vec<Rational>,
    /// The column player's mixed strategy.
    pub p2: Vec<Rational>,
    /// The row player's expected payoff.
    pub value_p1: Rational,
    /// The column player's expected payoff.
    pub value_p2: Rational,
}

/// Every extreme equilibrium and the maximal cliques of interchangeable ones.
#[derive(Clone, Debug, PartialEq)]
pub struct AllEquilibria {
    /// The extreme equilibria, ordered by the row player's then the column player's vertex.
    pub equilibria: Vec<BimatrixEquilibrium>,
    /// Each maximal clique as indices into `equilibria` (every row-vertex of the clique with
    /// every column-vertex), sorted.
    pub cliques: Vec<Vec<usize>>,
    /// Vertices found in the row player's and the column player's polytopes (zero included).
    pub vertices: [usize; 2],
}

/// Why the enumeration gave no answer.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum BimatrixError {
    /// A polytope has more vertices than allowed.
    #[error(
        "the {which} player's best-response polytope has more than {limit} vertices (the \
         enumeration stopped at {reached}); raise the limit to enumerate them"
    )]
    TooManyVertices {
        /// "row" or "column".
        which: &'static str,
        /// Vertices found when it stopped.
        reached: usize,
        /// The limit.
        limit: usize,
    },
    /// A degenerate polytope has too many feasible bases per vertex to walk.
    #[error(
        "the {which} player's best-response polytope is degenerate: {bases} lexico-feasible bases \
         walked for the {vertices} vertices found so far (the walk takes at most \
         {BASES_PER_VERTEX} bases per allowed vertex, {limit} vertices allowed, and 256 MiB of \
         bases seen)"
    )]
    TooManyBases {
        /// "row" or "column".
        which: &'static str,
        /// Vertices found when it stopped.
        vertices: usize,
        /// Bases walked when it stopped.
        bases: usize,
        /// The vertex limit.
        limit: usize,
    },
    /// The game is not a bimatrix game.
    #[error("{0}")]
    NotBimatrix(String),
}

/// The walk visits at most this many lexico-feasible bases per allowed vertex: a degenerate
/// vertex is reached through several.
pub const BASES_PER_VERTEX: usize = 16;

/// The most bytes of seen bases the walk remembers.
const MAX_SEEN_BYTES: usize = 1 << 28;

/// Why the vertex walk stopped early.
enum Stopped {
    /// The vertex limit, with the vertices found.
    Vertices(usize),
    /// The basis budget.
    Bases { vertices: usize, bases: usize },
}

impl Bimatrix {
    /// A two-player `.nfg` game as a bimatrix (refused for any other number of players).
    pub fn from_nfg(nfg: &NfgGame) -> Result<Bimatrix, BimatrixError> {
        if nfg.players.len() != 2 {
            return Err(BimatrixError::NotBimatrix(format!(
                "the game has {} player(s); a bimatrix game has two",
                nfg.players.len()
            )));
        }
        let (m, n) = (nfg.strategies[0].len(), nfg.strategies[1].len());
        let payoff = [0, 1].map(|p| {
            (0..m)
                .map(|i| {
                    (0..n)
                        .map(|j| nfg.payoffs[nfg.profile_index(&[i, j])][p].clone())
                        .collect()
                })
                .collect()
        });
        Ok(Bimatrix {
            rows: nfg.strategies[0].clone(),
            cols: nfg.strategies[1].clone(),
            payoff,
        })
    }

    /// The reduced normal form of an extensive game with both players' payoffs (at most
    /// `limit` reduced strategies per player).
    pub fn reduced(game: &Game, limit: usize) -> crate::Result<Bimatrix> {
        check_normal_form_size(game, limit)?;
        let strategies = [
            reduced_strategies(game, 0, limit)?,
            reduced_strategies(game, 1, limit)?,
        ];
        let mut payoff =
            [0, 1].map(|_| vec![vec![Rational::zero(); strategies[1].len()]; strategies[0].len()]);
        // Each pair of sequences reaching terminals adds its chance-weighted payoff to every
        // pair of reduced strategies playing both.
        let entries = crate::exact::sequence_form::payoff_matrices(game);
        let plays = |p: usize, seq: u32| -> Vec<usize> {
            (0..strategies[p].len())
                .filter(|&k| strategies[p][k].plays_sequence(game, p, seq as usize))
                .collect()
        };
        for (p, matrix) in entries.iter().enumerate() {
            let mut cache: HashMap<(usize, u32), Vec<usize>> = HashMap::new();
            for ((s, t), v) in matrix {
                let rows = cache.entry((0, *s)).or_insert_with(|| plays(0, *s)).clone();
                let cols = cache.entry((1, *t)).or_insert_with(|| plays(1, *t)).clone();
                for &i in &rows {
                    for &j in &cols {
                        payoff[p][i][j] += v;
                    }
                }
            }
        }
        Ok(Bimatrix {
            rows: strategies[0].iter().map(|s| s.label.clone()).collect(),
            cols: strategies[1].iter().map(|s| s.label.clone()).collect(),
            payoff,
        })
    }
}

/// A vertex of `{v >= 0 : C v <= 1}`: its point and, per label, whether it has it (the
/// coordinates' labels first, then the constraints').
type Vertex = (Vec<Rational>, Vec<bool>);

/// Every vertex of `{v >= 0 : C v <= 1}` for a positive `c` (`k` rows of `d` entries); at
/// most `limit` vertices.
///
/// The walk is over lexicographically feasible bases: the right-hand side is perturbed to
/// `1 + (e, e^2, ..., e^k)` (the slack columns of the tableau, `B^-1`, break every tie of the
/// ratio test), which makes the polytope simple without moving its vertices apart by more
/// than the perturbation, so every vertex of the original is the image of at least one basis
/// reached, and a degenerate vertex is reached through its lexico-feasible bases only, not
/// through all its feasible bases. The graph of those bases is connected (it is the graph of
/// a simple polytope) and every edge is one pivot, taken back by the reverse pivot on the way
/// back: the walk is depth-first with one tableau and a stack of pivots, and remembers the
/// bases it has seen (sorted variable lists), never a tableau per pending basis.
fn vertices(c: &[Vec<Rational>], d: usize, limit: usize) -> Result<Vec<Vertex>, Stopped> {
    let k = c.len();
    let width = d + k;
    // Tableau rows: [C | I | 1], variables v (0..d) then slacks (d..d+k).
    let mut tab: Vec<Vec<Rational>> = (0..k)
        .map(|r| {
            let mut row = c[r].clone();
            row.extend((0..k).map(|s| {
                if s == r {
                    Rational::one()
                } else {
                    Rational::zero()
                }
            }));
            row.push(Rational::one());
            row
        })
        .collect();
    let mut basis: Vec<usize> = (d..d + k).collect();
    let mut in_basis: Vec<bool> = (0..width).map(|j| j >= d).collect();
    let basis_bytes = k * std::mem::size_of::<usize>() + 32;
    let mut seen: HashSet<Vec<usize>> = HashSet::new();
    seen.insert(basis.clone());
    let mut found: Vec<Vertex> = Vec::new();
    let mut found_points: HashSet<Vec<Rational>> = HashSet::new();
    let mut record = |tab: &[Vec<Rational>], basis: &[usize]| -> Result<(), Stopped> {
        let mut point = vec![Rational::zero(); width];
        for (r, &b) in basis.iter().enumerate() {
            point[b] = tab[r][width].clone();
        }
        if found_points.insert(point[..d].to_vec()) {
            if found.len() == limit {
                return Err(Stopped::Vertices(found.len()));
            }
            let labels = point.iter().map(Zero::is_zero).collect();
            found.push((point[..d].to_vec(), labels));
        }
        Ok(())
    };
    record(&tab, &basis)?;
    // Per basis on the path: the next entering column to try, and the pivot (row, the
    // variable that left) that undoes the step into it.
    let mut stack: Vec<(usize, Option<(usize, usize)>)> = vec![(0, None)];
    while let Some(&(from, undo)) = stack.last() {
        let mut step = None;
        for j in from..width {
            if in_basis[j] {
                continue;
            }
            let Some(r) = lex_min_row(&tab, j, d, width) else {
                continue;
            };
            let mut key = basis.clone();
            key[r] = j;
            key.sort_unstable();
            if seen.contains(&key) {
                continue;
            }
            if seen.len() >= limit.saturating_mul(BASES_PER_VERTEX)
                || (seen.len() + 1).saturating_mul(basis_bytes) > MAX_SEEN_BYTES
            {
                return Err(Stopped::Bases {
                    vertices: found.len(),
                    bases: seen.len(),
                });
            }
            seen.insert(key);
            step = Some((j, r));
            break;
        }
        match step {
            Some((j, r)) => {
                stack.last_mut().expect("on the stack").0 = j + 1;
                let left = basis[r];
                pivot(&mut tab, r, j);
                basis[r] = j;
                in_basis[j] = true;
                in_basis[left] = false;
                record(&tab, &basis)?;
                stack.push((0, Some((r, left))));
            }
            None => {
                stack.pop();
                if let Some((r, left)) = undo {
                    let j = basis[r];
                    pivot(&mut tab, r, left);
                    basis[r] = left;
                    in_basis[left] = true;
                    in_basis[j] = false;
                }
            }
        }
    }
    Ok(found)
}

/// The leaving row when column `j` enters: the lexicographic minimum of (right-hand side,
/// the slack columns) over the entry in `j`, among rows with a positive entry (`None`: no
/// such row). The slack columns hold `B^-1`, whose rows are independent, so it is unique.
fn lex_min_row(tab: &[Vec<Rational>], j: usize, d: usize, width: usize) -> Option<usize> {
    let mut rows: Vec<usize> = (0..tab.len())
        .filter(|&r| tab[r][j].is_positive())
        .collect();
    for col in std::iter::once(width).chain(d..width) {
        if rows.len() <= 1 {
            break;
        }
        let ratios: Vec<Rational> = rows.iter().map(|&r| &tab[r][col] / &tab[r][j]).collect();
        let min = ratios.iter().min().expect("rows left").clone();
        rows = rows
            .iter()
            .zip(&ratios)
            .filter(|(_, x)| **x == min)
            .map(|(&r, _)| r)
            .collect();
    }
    rows.first().copied()
}

/// A Gauss-Jordan pivot of the tableau on row `r`, column `j`.
fn pivot(tab: &mut [Vec<Rational>], r: usize, j: usize) {
    let p = tab[r][j].clone();
    for x in tab[r].iter_mut() {
        *x = &*x / &p;
    }
    let pivot_row = tab[r].clone();
    for (i, row) in tab.iter_mut().enumerate() {
        if i != r && !row[j].is_zero() {
            let f = row[j].clone();
            for (x, y) in row.iter_mut().zip(&pivot_row) {
                if !y.is_zero() {
                    *x -= &f * y;
                }
            }
        }
    }
}

/// The refusal of a walk that stopped early.
fn stopped(e: Stopped, which: &'static str, limit: usize) -> BimatrixError {
    match e {
        Stopped::Vertices(reached) => BimatrixError::TooManyVertices {
            which,
            reached,
            limit,
        },
        Stopped::Bases { vertices, bases } => BimatrixError::TooManyBases {
            which,
            vertices,
            bases,
            limit,
        },
    }
}

/// Every extreme equilibrium of `game` with the maximal cliques, enumerating at most
/// `max_vertices` vertices per polytope (refused above it, with the count reached).
pub fn all_extreme_equilibria(
    game: &Bimatrix,
    max_vertices: usize,
) -> Result<AllEquilibria, BimatrixError> {
    let (m, n) = (game.rows.len(), game.cols.len());
    if m == 0 || n == 0 {
        return Err(BimatrixError::NotBimatrix(
            "a player has no strategy".to_string(),
        ));
    }
    // Shift each player's payoffs to be at least 1.
    let shifted = |p: usize| -> Vec<Vec<Rational>> {
        let lo = game.payoff[p]
            .iter()
            .flatten()
            .min()
            .cloned()
            .unwrap_or_default();
        let shift = Rational::one() - lo;
        game.payoff[p]
            .iter()
            .map(|row| row.iter().map(|v| v + &shift).collect())
            .collect()
    };
    let (a, b) = (shifted(0), shifted(1));
    // P: rows of B^T (one per column), over x. Q: rows of A, over y.
    let bt: Vec<Vec<Rational>> = (0..n)
        .map(|j| (0..m).map(|i| b[i][j].clone()).collect())
        .collect();
    let p_vertices = vertices(&bt, m, max_vertices).map_err(|e| stopped(e, "row", max_vertices))?;
    let q_vertices =
        vertices(&a, n, max_vertices).map_err(|e| stopped(e, "column", max_vertices))?;
    let vertex_counts = [p_vertices.len(), q_vertices.len()];
    // Labels as the game's: P's point labels are x-zeros (0..m) then tight columns (m..m+n);
    // Q's are y-zeros (labels m..m+n) then tight rows (labels 0..m).
    let p_labels = |l: &[bool]| -> Vec<bool> { l.to_vec() };
    let q_labels = |l: &[bool]| -> Vec<bool> {
        let mut out = vec![false; m + n];
        out[m..m + n].copy_from_slice(&l[..n]);
        out[..m].copy_from_slice(&l[n..n + m]);
        out
    };
    let nonzero = |v: &Vertex| v.0.iter().any(|x| !x.is_zero());
    let xs: Vec<(Vec<Rational>, Vec<bool>)> = p_vertices
        .iter()
        .filter(|v| nonzero(v))
        .map(|v| (v.0.clone(), p_labels(&v.1)))
        .collect();
    let ys: Vec<(Vec<Rational>, Vec<bool>)> = q_vertices
        .iter()
        .filter(|v| nonzero(v))
        .map(|v| (v.0.clone(), q_labels(&v.1)))
        .collect();
    let normalised = |v: &[Rational]| -> Vec<Rational> {
        let s: Rational = v.iter().sum();
        v.iter().map(|x| x / &s).collect()
    };
    let mut xs: Vec<(Vec<Rational>, Vec<bool>)> =
        xs.into_iter().map(|(v, l)| (normalised(&v), l)).collect();
    let mut ys: Vec<(Vec<Rational>, Vec<bool>)> =
        ys.into_iter().map(|(v, l)| (normalised(&v), l)).collect();
    xs.sort();
    ys.sort();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (i, (_, lx)) in xs.iter().enumerate() {
        for (j, (_, ly)) in ys.iter().enumerate() {
            if lx.iter().zip(ly).all(|(a, b)| *a || *b) {
                pairs.push((i, j));
            }
        }
    }
    let value = |p: usize, x: &[Rational], y: &[Rational]| -> Rational {
        let mut total = Rational::zero();
        for (i, xi) in x.iter().enumerate().filter(|(_, v)| !v.is_zero()) {
            for (j, yj) in y.iter().enumerate().filter(|(_, v)| !v.is_zero()) {
                total += xi * yj * &game.payoff[p][i][j];
            }
        }
        total
    };
    let equilibria: Vec<BimatrixEquilibrium> = pairs
        .iter()
        .map(|&(i, j)| BimatrixEquilibrium {
            value_p1: value(0, &xs[i].0, &ys[j].0),
            value_p2: value(1, &xs[i].0, &ys[j].0),
            p1: xs[i].0.clone(),
            p2: ys[j].0.clone(),
        })
        .collect();
    let cliques = maximal_cliques(&pairs);
    Ok(AllEquilibria {
        equilibria,
        cliques,
        vertices: vertex_counts,
    })
}

/// The maximal complete bipartite subgraphs of the graph whose edges are `pairs` (row vertex,
/// column vertex), as sorted lists of edge indices: the closed sets of column vertices
/// (intersections of row vertices' neighbourhoods), each with every row vertex adjacent to all
/// of it.
fn maximal_cliques(pairs: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut neighbours: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    for &(i, j) in pairs {
        neighbours.entry(i).or_default().insert(j);
    }
    let mut closed: BTreeSet<BTreeSet<usize>> = neighbours.values().cloned().collect();
    loop {
        let list: Vec<BTreeSet<usize>> = closed.iter().cloned().collect();
        let mut added = false;
        for a in &list {
            for b in &list {
                let c: BTreeSet<usize> = a.intersection(b).copied().collect();
                if !c.is_empty() && closed.insert(c) {
                    added = true;
                }
            }
        }
        if !added {
            break;
        }
    }
    let mut cliques: Vec<Vec<usize>> = closed
        .iter()
        .map(|cols| {
            let rows: BTreeSet<usize> = neighbours
                .iter()
                .filter(|(_, ns)| cols.is_subset(ns))
                .map(|(&i, _)| i)
                .collect();
            pairs
                .iter()
                .enumerate()
                .filter(|(_, (i, j))| rows.contains(i) && cols.contains(j))
                .map(|(k, _)| k)
                .collect()
        })
        .collect();
    cliques.sort();
    cliques
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{int, rat};

    fn game(a: &[&[i64]], b: &[&[i64]]) -> Bimatrix {
        let m = |x: &[&[i64]]| {
            x.iter()
                .map(|r| r.iter().map(|&v| int(v)).collect())
                .collect()
        };
        Bimatrix {
            rows: (0..a.len()).map(|i| format!("r{i}")).collect(),
            cols: (0..a[0].len()).map(|j| format!("c{j}")).collect(),
            payoff: [m(a), m(b)],
        }
    }

    #[test]
    fn battle_of_the_sexes_has_three_equilibria() {
        let g = game(&[&[2, 0], &[0, 1]], &[&[1, 0], &[0, 2]]);
        let all = all_extreme_equilibria(&g, 100).unwrap();
        assert_eq!(all.equilibria.len(), 3);
        let mixed = all
            .equilibria
            .iter()
            .find(|e| e.p1.iter().all(|x| !x.is_zero()))
            .unwrap();
        assert_eq!(mixed.p1, vec![rat(2, 3), rat(1, 3)]);
        assert_eq!(mixed.p2, vec![rat(1, 3), rat(2, 3)]);
        assert_eq!(mixed.value_p1, rat(2, 3));
        // No two equilibria are interchangeable: three cliques of one.
        assert_eq!(all.cliques, vec![vec![0], vec![1], vec![2]]);
    }

    #[test]
    fn a_degenerate_game_gives_its_cliques() {
        // The column player is indifferent everywhere; the row player plays r0 against
        // y0 > 1/2, r1 against y0 < 1/2, anything at 1/2. The equilibria are r0 with y0 >= 1/2,
        // r1 with y0 <= 1/2 and any x with (1/2, 1/2): three segments, four extreme points.
        let g = game(&[&[1, 0], &[0, 1]], &[&[0, 0], &[0, 0]]);
        let all = all_extreme_equilibria(&g, 100).unwrap();
        for e in &all.equilibria {
            // Each strategy is a best response: no pure deviation gains.
            for p in 0..2 {
                for k in 0..2 {
                    let dev = if p == 0 {
                        (0..2)
                            .map(|j| &e.p2[j] * &g.payoff[0][k][j])
                            .sum::<Rational>()
                    } else {
                        (0..2)
                            .map(|i| &e.p1[i] * &g.payoff[1][i][k])
                            .sum::<Rational>()
                    };
                    let v = if p == 0 { &e.value_p1 } else { &e.value_p2 };
                    assert!(dev <= *v);
                }
            }
        }
        assert_eq!(all.equilibria.len(), 4, "{:?}", all.equilibria);
        assert_eq!(all.cliques.len(), 3);
        assert!(all.cliques.iter().all(|c| c.len() == 2));
    }

    #[test]
    fn the_vertex_limit_refuses_with_the_count() {
        let g = game(&[&[2, 0], &[0, 1]], &[&[1, 0], &[0, 2]]);
        let err = all_extreme_equilibria(&g, 2).unwrap_err();
        assert!(
            matches!(err, BimatrixError::TooManyVertices { reached: 2, .. }),
            "{err}"
        );
    }
}

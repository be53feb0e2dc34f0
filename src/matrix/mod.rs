//! Two-player zero-sum matrix games with exact payoffs: pure saddle points, the exact LP value
//! with optimal mixed strategies of both players, and each player's whole optimal set as an
//! exact polytope (vertices, facets, affine hull).

pub mod normal_form;
pub mod polytope;

use crate::error::{err, fail, Error, Result, ResultExt};
use crate::format::nfg::NfgGame;
use crate::lp::{LinearProgram, LpError, Method, Relation, SolveOptions};
use crate::matrix::polytope::{unit, Description, Polytope};
use crate::scalar::{format_rational, Rational};
use num_traits::{One, Signed, Zero};

/// A zero-sum matrix game: `payoff[i][j]` is what the row player gets (and the column player
/// pays) when row `i` meets column `j`.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixGame {
    /// Row strategy labels.
    pub rows: Vec<String>,
    /// Column strategy labels.
    pub cols: Vec<String>,
    /// Row player's payoffs, one row per row strategy.
    pub payoff: Vec<Vec<Rational>>,
}

/// A pure equilibrium (saddle point): the entry is the minimum of its row and the maximum of its
/// column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaddlePoint {
    /// Row index.
    pub row: usize,
    /// Column index.
    pub col: usize,
}

/// The outcome of the pure-strategy search.
#[derive(Clone, Debug)]
pub struct PureAnalysis {
    /// Best payoff the row player can guarantee with a pure strategy: `max_i min_j P_ij`.
    pub row_security: Rational,
    /// A row reaching `row_security`.
    pub row_security_at: usize,
    /// Least the column player can hold the row player to with a pure strategy: `min_j max_i`.
    pub col_security: Rational,
    /// A column reaching `col_security`.
    pub col_security_at: usize,
    /// All saddle points (empty exactly when `row_security < col_security`).
    pub saddle_points: Vec<SaddlePoint>,
}

/// The exact solution of a matrix game.
#[derive(Clone, Debug)]
pub struct MatrixSolution {
    /// The value for the row player.
    pub value: Rational,
    /// An optimal mixed strategy of the row player.
    pub row_strategy: Vec<Rational>,
    /// An optimal mixed strategy of the column player.
    pub col_strategy: Vec<Rational>,
}

/// One player's set of optimal mixed strategies, exactly.
#[derive(Clone, Debug)]
pub struct OptimalSet {
    /// Pure strategies that no optimal strategy uses, proved by complementary slackness: they
    /// do strictly worse than the value against the opponent's optimal strategy.
    pub excluded: Vec<usize>,
    /// The pure strategies kept as coordinates of `description`.
    pub kept: Vec<usize>,
    /// The optimal set over the kept strategies (coordinates in `kept` order).
    pub description: Description,
    /// The vertices as full mixed strategies (one entry per pure strategy).
    pub vertices: Vec<Vec<Rational>>,
}

impl MatrixGame {
    /// A two-player zero-sum strategic-form table (`.nfg`) as a matrix game (rows: player 1's
    /// strategies, entries: player 1's payoffs). Fails for other games, naming the profile that
    /// is not zero-sum.
    pub fn from_nfg(nfg: &NfgGame) -> Result<MatrixGame> {
        if nfg.players.len() != 2 {
            fail!(
                Invalid,
                "the game has {} players; a matrix game needs 2",
                nfg.players.len()
            );
        }
        let (rows, cols) = (nfg.strategies[0].len(), nfg.strategies[1].len());
        let mut m = vec![vec![Rational::zero(); cols]; rows];
        for r in 0..rows {
            for c in 0..cols {
                let u = &nfg.payoffs[nfg.profile_index(&[r, c])];
                if !(&u[0] + &u[1]).is_zero() {
                    fail!(
                        Invalid,
                        "the game is not zero-sum: profile ({}, {}) pays {} and {}",
                        crate::format::text::quoted(&nfg.strategies[0][r]),
                        crate::format::text::quoted(&nfg.strategies[1][c]),
                        format_rational(&u[0]),
                        format_rational(&u[1])
                    );
                }
                m[r][c] = u[0].clone();
            }
        }
        MatrixGame::new(nfg.strategies[0].clone(), nfg.strategies[1].clone(), m)
    }

    /// The game as a two-player strategic-form table (`.nfg`) with this title and players.
    pub fn to_nfg(&self, title: &str, players: &[String; 2]) -> NfgGame {
        let mut payoffs = Vec::with_capacity(self.rows.len() * self.cols.len());
        for c in 0..self.cols.len() {
            for r in 0..self.rows.len() {
                let u = self.payoff[r][c].clone();
                payoffs.push(vec![u.clone(), -u]);
            }
        }
        NfgGame {
            title: title.to_string(),
            comment: None,
            players: players.to_vec(),
            strategies: vec![self.rows.clone(), self.cols.clone()],
            payoffs,
        }
    }

    /// A matrix game after checking that the dimensions agree and are non-zero.
    pub fn new(rows: Vec<String>, cols: Vec<String>, payoff: Vec<Vec<Rational>>) -> Result<Self> {
        let game = MatrixGame { rows, cols, payoff };
        game.validate()?;
        Ok(game)
    }

    /// Checks the labels and the payoff table have matching, non-zero sizes.
    pub fn validate(&self) -> Result<()> {
        if self.rows.is_empty() || self.cols.is_empty() {
            fail!(
                Invalid,
                "a matrix game needs at least one row and one column"
            );
        }
        if self.payoff.len() != self.rows.len() {
            fail!(
                Invalid,
                "payoff table has {} rows but {} row labels",
                self.payoff.len(),
                self.rows.len()
            );
        }
        for (i, row) in self.payoff.iter().enumerate() {
            if row.len() != self.cols.len() {
                fail!(
                    Invalid,
                    "payoff row {} has {} entries, expected {} (one per column)",
                    i + 1,
                    row.len(),
                    self.cols.len()
                );
            }
        }
        Ok(())
    }

    /// Number of row strategies.
    pub fn num_rows(&self) -> usize {
        self.rows.len()
    }

    /// Number of column strategies.
    pub fn num_cols(&self) -> usize {
        self.cols.len()
    }

    /// The row player's expected payoff when the players mix with `x` and `y`.
    pub fn expected(&self, x: &[Rational], y: &[Rational]) -> Rational {
        let mut total = Rational::zero();
        for (i, xi) in x.iter().enumerate().filter(|(_, p)| !p.is_zero()) {
            for (j, yj) in y.iter().enumerate().filter(|(_, p)| !p.is_zero()) {
                total += xi * yj * &self.payoff[i][j];
            }
        }
        total
    }

    /// `x^T P`: the row player's payoff against each pure column.
    pub fn row_mix_payoffs(&self, x: &[Rational]) -> Vec<Rational> {
        let mut out = vec![Rational::zero(); self.num_cols()];
        for (i, xi) in x.iter().enumerate().filter(|(_, p)| !p.is_zero()) {
            for (j, slot) in out.iter_mut().enumerate() {
                *slot += xi * &self.payoff[i][j];
            }
        }
        out
    }

    /// `P y`: the row player's payoff of each pure row against `y`.
    pub fn col_mix_payoffs(&self, y: &[Rational]) -> Vec<Rational> {
        self.payoff
            .iter()
            .map(|row| {
                row.iter()
                    .zip(y)
                    .filter(|(_, p)| !p.is_zero())
                    .map(|(a, p)| a * p)
                    .sum()
            })
            .collect()
    }

    /// Pure security levels and every saddle point.
    pub fn pure_analysis(&self) -> PureAnalysis {
        let row_min: Vec<&Rational> = self
            .payoff
            .iter()
            .map(|r| r.iter().min().expect("non-empty row"))
            .collect();
        let col_max: Vec<&Rational> = (0..self.num_cols())
            .map(|j| {
                self.payoff
                    .iter()
                    .map(|r| &r[j])
                    .max()
                    .expect("non-empty column")
            })
            .collect();
        let (row_security_at, row_security) = row_min
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
            .map(|(i, v)| (i, (*v).clone()))
            .expect("non-empty");
        let (col_security_at, col_security) = col_max
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.cmp(b.1).then(a.0.cmp(&b.0)))
            .map(|(j, v)| (j, (*v).clone()))
            .expect("non-empty");
        let mut saddle_points = Vec::new();
        for (i, row) in self.payoff.iter().enumerate() {
            for (j, a) in row.iter().enumerate() {
                if a == row_min[i] && a == col_max[j] {
                    saddle_points.push(SaddlePoint { row: i, col: j });
                }
            }
        }
        PureAnalysis {
            row_security,
            row_security_at,
            col_security,
            col_security_at,
            saddle_points,
        }
    }

    /// The exact value and an optimal strategy for each player, from two exact LPs (one per
    /// player), then certified: `min_j (x^T P)_j = value = max_i (P y)_i`.
    pub fn solve(&self) -> Result<MatrixSolution> {
        self.validate()?;
        let (m, n) = (self.num_rows(), self.num_cols());
        // Row player: maximise v subject to (x^T P)_j >= v, sum x = 1, x >= 0.
        let mut lp = LinearProgram::new(m + 1);
        lp.set_free(m);
        lp.set_objective(m, Rational::one());
        for j in 0..n {
            let mut coeffs: Vec<(usize, Rational)> = (0..m)
                .filter(|&i| !self.payoff[i][j].is_zero())
                .map(|i| (i, self.payoff[i][j].clone()))
                .collect();
            coeffs.push((m, -Rational::one()));
            lp.add_constraint(coeffs, Relation::Ge, Rational::zero());
        }
        lp.add_constraint(
            (0..m).map(|i| (i, Rational::one())).collect(),
            Relation::Eq,
            Rational::one(),
        );
        let row = lp
            .solve_with(&SolveOptions::new(Method::FloatThenExact))
            .map(|s| s.0)
            .map_err(lp_failure)
            .context_with(|| "row player's LP".into())?;
        // Column player: maximise -w subject to (P y)_i <= w, sum y = 1, y >= 0.
        let mut lp = LinearProgram::new(n + 1);
        lp.set_free(n);
        lp.set_objective(n, -Rational::one());
        for i in 0..m {
            let mut coeffs: Vec<(usize, Rational)> = (0..n)
                .filter(|&j| !self.payoff[i][j].is_zero())
                .map(|j| (j, self.payoff[i][j].clone()))
                .collect();
            coeffs.push((n, -Rational::one()));
            lp.add_constraint(coeffs, Relation::Le, Rational::zero());
        }
        lp.add_constraint(
            (0..n).map(|j| (j, Rational::one())).collect(),
            Relation::Eq,
            Rational::one(),
        );
        let col = lp
            .solve_with(&SolveOptions::new(Method::FloatThenExact))
            .map(|s| s.0)
            .map_err(lp_failure)
            .context_with(|| "column player's LP".into())?;
        let x: Vec<Rational> = row.values[..m].to_vec();
        let y: Vec<Rational> = col.values[..n].to_vec();
        let floor = self.row_mix_payoffs(&x).into_iter().min().expect("n > 0");
        let ceiling = self.col_mix_payoffs(&y).into_iter().max().expect("m > 0");
        let sum_ok = |v: &[Rational]| {
            v.iter().all(|p| !p.is_negative()) && v.iter().sum::<Rational>().is_one()
        };
        if floor != ceiling || !sum_ok(&x) || !sum_ok(&y) {
            fail!(
                Invalid,
                "internal error: LP strategies fail the exact certificate (row guarantees \
                 {floor}, column concedes {ceiling})"
            );
        }
        Ok(MatrixSolution {
            value: floor,
            row_strategy: x,
            col_strategy: y,
        })
    }

    /// The whole optimal set of `player` (0 = rows, 1 = columns) as an exact polytope. Pure
    /// strategies doing strictly worse than the value against the opponent's optimal strategy
    /// in `solution` are removed first (complementary slackness: no optimal strategy uses them);
    /// the rest is described by [`Polytope::describe`].
    pub fn optimal_set(&self, solution: &MatrixSolution, player: usize) -> Result<OptimalSet> {
        let v = &solution.value;
        // Orient everything as "the player's payoff matrix", rows = the player's strategies.
        let (own, against): (usize, Vec<Rational>) = if player == 0 {
            (
                self.num_rows(),
                self.col_mix_payoffs(&solution.col_strategy),
            )
        } else {
            (
                self.num_cols(),
                self.row_mix_payoffs(&solution.row_strategy),
            )
        };
        // Row k of the player's strategies is usable only if it earns exactly v against the
        // opponent's optimum (for the column player "earns" means concedes).
        let (kept, excluded): (Vec<usize>, Vec<usize>) = (0..own).partition(|&k| &against[k] == v);
        let d = kept.len();
        let mut poly = Polytope::new(d);
        let opp = if player == 0 {
            self.num_cols()
        } else {
            self.num_rows()
        };
        for o in 0..opp {
            let coeffs: Vec<Rational> = kept
                .iter()
                .map(|&k| {
                    if player == 0 {
                        self.payoff[k][o].clone()
                    } else {
                        self.payoff[o][k].clone()
                    }
                })
                .collect();
            if player == 0 {
                poly.add_ge(coeffs, v.clone());
            } else {
                poly.add_le(coeffs, v.clone());
            }
        }
        // Non-negativity last: where an opponent row and a sign constraint cut the same facet,
        // the simpler one survives the redundancy sweep.
        for k in 0..d {
            poly.add_ge(unit(d, k), Rational::zero());
        }
        poly.add_equality(vec![Rational::one(); d], Rational::one());
        let description = poly.describe()?;
        let vertices = description
            .vertices
            .iter()
            .map(|z| {
                let mut full = vec![Rational::zero(); own];
                for (slot, &k) in kept.iter().enumerate() {
                    full[k] = z[slot].clone();
                }
                full
            })
            .collect();
        Ok(OptimalSet {
            excluded,
            kept,
            description,
            vertices,
        })
    }
}

fn lp_failure(e: LpError) -> Error {
    err!(
        Invalid,
        "exact LP failed: {e:?} (a finite matrix game always has a solution)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{int, rat};

    fn game(table: &[&[i64]]) -> MatrixGame {
        MatrixGame::new(
            (0..table.len()).map(|i| format!("r{i}")).collect(),
            (0..table[0].len()).map(|j| format!("c{j}")).collect(),
            table
                .iter()
                .map(|r| r.iter().map(|&a| int(a)).collect())
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn matching_pennies_closed_form() {
        let g = game(&[&[1, -1], &[-1, 1]]);
        assert!(g.pure_analysis().saddle_points.is_empty());
        let s = g.solve().unwrap();
        assert_eq!(s.value, int(0));
        assert_eq!(s.row_strategy, vec![rat(1, 2), rat(1, 2)]);
        assert_eq!(s.col_strategy, vec![rat(1, 2), rat(1, 2)]);
    }

    #[test]
    fn two_by_two_formula() {
        // For [[a, b], [c, d]] without saddle: value (ad - bc) / (a + d - b - c),
        // row plays the first row with (d - c) / (a + d - b - c).
        let g = game(&[&[3, -1], &[-2, 4]]);
        let s = g.solve().unwrap();
        assert_eq!(s.value, rat(3 * 4 - 2, 3 + 4 + 1 + 2));
        assert_eq!(s.row_strategy[0], rat(6, 10));
        assert_eq!(s.col_strategy[0], rat(5, 10));
    }

    #[test]
    fn saddle_points_all_found() {
        // Two saddle points with value 2: rows 0 and 2 both hold 2 in column 1.
        let g = game(&[&[5, 2, 3], &[1, 0, 7], &[4, 2, 2]]);
        let pa = g.pure_analysis();
        assert_eq!(pa.row_security, int(2));
        assert_eq!(pa.col_security, int(2));
        assert!(pa.saddle_points.contains(&SaddlePoint { row: 0, col: 1 }));
        assert!(pa.saddle_points.contains(&SaddlePoint { row: 2, col: 1 }));
        assert_eq!(pa.saddle_points.len(), 2);
        assert_eq!(g.solve().unwrap().value, int(2));
    }

    #[test]
    fn rock_paper_scissors_unique_and_optimal_sets() {
        let g = game(&[&[0, -1, 1], &[1, 0, -1], &[-1, 1, 0]]);
        let s = g.solve().unwrap();
        assert_eq!(s.value, int(0));
        for p in 0..2 {
            let set = g.optimal_set(&s, p).unwrap();
            assert_eq!(set.vertices, vec![vec![rat(1, 3); 3]]);
            assert_eq!(set.description.dimension, 0);
        }
    }

    #[test]
    fn optimal_set_with_a_segment() {
        // Column player indifferent between columns 0 and 1 (identical), both beat column 2:
        // the optimal set is the segment between the two pure columns.
        let g = game(&[&[1, 1, 3], &[1, 1, 2]]);
        let s = g.solve().unwrap();
        assert_eq!(s.value, int(1));
        let set = g.optimal_set(&s, 1).unwrap();
        assert_eq!(set.excluded, vec![2]);
        assert_eq!(
            set.vertices,
            vec![vec![int(0), int(1), int(0)], vec![int(1), int(0), int(0)]]
        );
        // Every row strategy is optimal for the row player here (both rows hold 1).
        let rows = g.optimal_set(&s, 0).unwrap();
        assert_eq!(rows.vertices.len(), 2);
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(MatrixGame::new(vec!["a".into()], vec![], vec![vec![]]).is_err());
        let e = MatrixGame::new(
            vec!["a".into(), "b".into()],
            vec!["x".into()],
            vec![vec![int(1)], vec![]],
        )
        .unwrap_err();
        assert!(e.to_string().contains("row 2"));
    }
}

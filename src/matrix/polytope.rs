//! Exact description of bounded polyhedra `{x : E x = e, G x <= g}` over the rationals: per-
//! coordinate bounds, implicit equalities, irredundant (facet) inequalities, the affine hull and
//! every vertex.
//!
//! Method: exact LPs (the rational simplex) classify each inequality as an implicit equality
//! (its minimum over the set equals its bound), redundant (its maximum without it stays within
//! its bound) or a facet. The equalities are brought to reduced row echelon form and eliminated,
//! which leaves a full-dimensional polytope in `d` free coordinates described by its facets
//! only; every vertex is then the unique solution of `d` facet equations with independent normals
//! that satisfies all facets, so enumerating `d`-subsets of the facets finds all of them.
//! Everything is exact; no tolerance appears anywhere.

use crate::error::{fail, Result};
use crate::lp::{LinearProgram, LpError, Method, Relation, SolveOptions};
use crate::scalar::Rational;
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeSet, HashMap};

/// A linear form `coeffs . x` with its right-hand side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinearConstraint {
    /// Dense coefficients, one per coordinate.
    pub coeffs: Vec<Rational>,
    /// Right-hand side.
    pub rhs: Rational,
}

/// A polyhedron `{x : equalities hold, inequalities (coeffs . x <= rhs) hold}`.
#[derive(Clone, Debug)]
pub struct Polytope {
    /// Number of coordinates.
    pub dim: usize,
    /// Constraints `coeffs . x = rhs`.
    pub equalities: Vec<LinearConstraint>,
    /// Constraints `coeffs . x <= rhs`.
    pub inequalities: Vec<LinearConstraint>,
}

/// Largest number of facet subsets the vertex search will try before giving up.
pub const MAX_BASES: u128 = 5_000_000;

/// The exact description computed by [`Polytope::describe`].
#[derive(Clone, Debug)]
pub struct Description {
    /// Dimension of the polytope (of its affine hull).
    pub dimension: usize,
    /// `(min, max)` of every coordinate over the polytope.
    pub bounds: Vec<(Rational, Rational)>,
    /// The affine hull in reduced row echelon form (pivot coordinates in `hull_pivots`).
    pub affine_hull: Vec<LinearConstraint>,
    /// Pivot coordinate of each row of `affine_hull`.
    pub hull_pivots: Vec<usize>,
    /// Indices of inequalities that hold with equality everywhere on the polytope.
    pub implicit_equalities: Vec<usize>,
    /// Indices of the irredundant inequalities that are not implicit equalities: one per facet.
    pub facets: Vec<usize>,
    /// Coordinates left free by the affine hull (the others are its pivots).
    pub free_coords: Vec<usize>,
    /// Each facet restricted to the affine hull: pivot coordinates eliminated, coefficients
    /// over `free_coords`, scaled to coprime integers (the rhs stays rational).
    pub facets_on_hull: Vec<LinearConstraint>,
    /// All vertices, sorted lexicographically.
    pub vertices: Vec<Vec<Rational>>,
    /// Number of exact LPs solved.
    pub lps_solved: usize,
}

/// Result of one LP over the polytope.
enum Optimum {
    /// The optimum value and an optimal point.
    Finite(Rational, Vec<Rational>),
    Unbounded,
    Infeasible,
}

fn dot(a: &[Rational], x: &[Rational]) -> Rational {
    a.iter()
        .zip(x)
        .filter(|(c, _)| !c.is_zero())
        .map(|(c, v)| c * v)
        .sum()
}

impl Polytope {
    /// The whole space `R^dim` (add constraints to cut it down).
    pub fn new(dim: usize) -> Self {
        Polytope {
            dim,
            equalities: Vec::new(),
            inequalities: Vec::new(),
        }
    }

    /// Adds `coeffs . x = rhs`.
    pub fn add_equality(&mut self, coeffs: Vec<Rational>, rhs: Rational) {
        assert_eq!(coeffs.len(), self.dim, "constraint length must equal dim");
        self.equalities.push(LinearConstraint { coeffs, rhs });
    }

    /// Adds `coeffs . x <= rhs`; returns its inequality index.
    pub fn add_le(&mut self, coeffs: Vec<Rational>, rhs: Rational) -> usize {
        assert_eq!(coeffs.len(), self.dim, "constraint length must equal dim");
        self.inequalities.push(LinearConstraint { coeffs, rhs });
        self.inequalities.len() - 1
    }

    /// Adds `coeffs . x >= rhs` (stored as `-coeffs . x <= -rhs`); returns its inequality index.
    pub fn add_ge(&mut self, coeffs: Vec<Rational>, rhs: Rational) -> usize {
        self.add_le(coeffs.into_iter().map(|c| -c).collect(), -rhs)
    }

    /// Adds `0 <= x_i <= 1` for every coordinate (lower bounds first, then upper bounds).
    pub fn add_unit_box(&mut self) {
        for i in 0..self.dim {
            self.add_ge(unit(self.dim, i), Rational::zero());
        }
        for i in 0..self.dim {
            self.add_le(unit(self.dim, i), Rational::one());
        }
    }

    /// Maximises `objective . x` over the equalities, the inequalities marked `active` and the
    /// inequalities `extra_eq` taken as equalities.
    fn optimize(
        &self,
        objective: &[Rational],
        active: &[bool],
        extra_eq: &[usize],
    ) -> Result<Optimum> {
        let mut lp = LinearProgram::new(self.dim);
        for v in 0..self.dim {
            lp.set_free(v);
            if !objective[v].is_zero() {
                lp.set_objective(v, objective[v].clone());
            }
        }
        let sparse = |c: &LinearConstraint| -> Vec<(usize, Rational)> {
            c.coeffs
                .iter()
                .enumerate()
                .filter(|(_, a)| !a.is_zero())
                .map(|(i, a)| (i, a.clone()))
                .collect()
        };
        for c in &self.equalities {
            lp.add_constraint(sparse(c), Relation::Eq, c.rhs.clone());
        }
        for &k in extra_eq {
            let c = &self.inequalities[k];
            lp.add_constraint(sparse(c), Relation::Eq, c.rhs.clone());
        }
        for (k, c) in self.inequalities.iter().enumerate() {
            if active[k] {
                lp.add_constraint(sparse(c), Relation::Le, c.rhs.clone());
            }
        }
        Ok(
            match lp
                .solve_with(&SolveOptions::new(Method::FloatThenExact))
                .map(|s| s.0)
            {
                Ok(sol) => Optimum::Finite(sol.objective, sol.values),
                Err(LpError::Unbounded) => Optimum::Unbounded,
                Err(LpError::Infeasible) => Optimum::Infeasible,
                Err(e) => fail!(Invalid, "exact LP failed: {e}"),
            },
        )
    }

    /// `(min, max)` of `objective . x` over the polytope, by two exact LPs.
    pub fn range(&self, objective: &[Rational]) -> Result<(Rational, Rational)> {
        let active = vec![true; self.inequalities.len()];
        let neg: Vec<Rational> = objective.iter().map(|c| -c).collect();
        let max = match self.optimize(objective, &active, &[])? {
            Optimum::Finite(v, _) => v,
            Optimum::Unbounded => fail!(
                Invalid,
                "the objective is unbounded above on the polyhedron"
            ),
            Optimum::Infeasible => fail!(Invalid, "the polyhedron is empty"),
        };
        let min = match self.optimize(&neg, &active, &[])? {
            Optimum::Finite(v, _) => -v,
            Optimum::Unbounded => fail!(
                Invalid,
                "the objective is unbounded below on the polyhedron"
            ),
            Optimum::Infeasible => fail!(Invalid, "the polyhedron is empty"),
        };
        Ok((min, max))
    }

    /// Bounds, implicit equalities, facets, affine hull and all vertices, exactly. Fails when
    /// the set is empty or unbounded, or when the vertex search would exceed [`MAX_BASES`].
    pub fn describe(&self) -> Result<Description> {
        let n = self.dim;
        let m = self.inequalities.len();
        let mut lps = 0usize;
        // Points of the polytope seen as LP optima: one with slack on an inequality proves it is
        // not an implicit equality without another LP.
        let mut points: Vec<Vec<Rational>> = Vec::new();
        let all = vec![true; m];

        let mut bounds = Vec::with_capacity(n);
        for i in 0..n {
            let mut ends = [Rational::zero(), Rational::zero()];
            for (e, sign) in [(0usize, -1i64), (1, 1)] {
                let mut obj = vec![Rational::zero(); n];
                obj[i] = Rational::from_integer(sign.into());
                lps += 1;
                match self.optimize(&obj, &all, &[])? {
                    Optimum::Finite(v, x) => {
                        ends[e] = if sign < 0 { -v } else { v };
                        points.push(x);
                    }
                    Optimum::Unbounded => fail!(
                        Invalid,
                        "the polyhedron is unbounded in coordinate {} (only bounded sets have a \
                         vertex description)",
                        i + 1
                    ),
                    Optimum::Infeasible => fail!(Invalid, "the polyhedron is empty"),
                }
            }
            let [lo, hi] = ends;
            bounds.push((lo, hi));
        }
        if n == 0 {
            if let Optimum::Infeasible = self.optimize(&[], &all, &[])? {
                fail!(Invalid, "the polyhedron is empty");
            }
        }

        // Group exact duplicates (same constraint up to a positive factor): they share a fate.
        let mut representative: Vec<usize> = (0..m).collect();
        let mut seen: HashMap<(Vec<Rational>, Rational), usize> = HashMap::new();
        let mut trivial = vec![false; m];
        for k in 0..m {
            let c = &self.inequalities[k];
            let Some(lead) = c.coeffs.iter().find(|a| !a.is_zero()).map(|a| a.abs()) else {
                if c.rhs.is_negative() {
                    fail!(
                        Invalid,
                        "inequality {} reads 0 <= {}: the set is empty",
                        k + 1,
                        c.rhs
                    );
                }
                trivial[k] = true;
                continue;
            };
            let key = (
                c.coeffs.iter().map(|a| a / &lead).collect::<Vec<_>>(),
                &c.rhs / &lead,
            );
            representative[k] = *seen.entry(key).or_insert(k);
        }

        let mut implicit = vec![false; m];
        for k in 0..m {
            if trivial[k] || representative[k] != k {
                continue;
            }
            let c = &self.inequalities[k];
            if points.iter().any(|x| dot(&c.coeffs, x) < c.rhs) {
                continue;
            }
            let neg: Vec<Rational> = c.coeffs.iter().map(|a| -a).collect();
            lps += 1;
            match self.optimize(&neg, &all, &[])? {
                Optimum::Finite(v, x) => {
                    if -v == c.rhs {
                        implicit[k] = true;
                    }
                    points.push(x);
                }
                _ => fail!(
                    Invalid,
                    "internal error: a bounded non-empty polytope gave no finite optimum"
                ),
            }
        }
        for k in 0..m {
            implicit[k] = implicit[representative[k]] && !trivial[k];
        }

        // Drop redundant inequalities one at a time, so the set never changes.
        let implicit_idx: Vec<usize> = (0..m)
            .filter(|&k| implicit[k] && representative[k] == k)
            .collect();
        let mut active: Vec<bool> = (0..m)
            .map(|k| !trivial[k] && !implicit[k] && representative[k] == k)
            .collect();
        for k in 0..m {
            if !active[k] {
                continue;
            }
            active[k] = false;
            let c = &self.inequalities[k];
            lps += 1;
            let redundant = match self.optimize(&c.coeffs, &active, &implicit_idx)? {
                Optimum::Finite(v, _) => v <= c.rhs,
                Optimum::Unbounded => false,
                Optimum::Infeasible => {
                    unreachable!("dropping a constraint keeps the set non-empty")
                }
            };
            active[k] = !redundant;
        }
        let facets: Vec<usize> = (0..m).filter(|&k| active[k]).collect();

        // Affine hull: explicit equalities plus the implicit ones, in reduced row echelon form.
        let mut hull: Vec<LinearConstraint> = self.equalities.clone();
        hull.extend(implicit_idx.iter().map(|&k| self.inequalities[k].clone()));
        let pivots = rref(&mut hull)?;
        let free: Vec<usize> = (0..n).filter(|v| !pivots.contains(v)).collect();
        let d = free.len();

        // Facets in the free coordinates: substitute x_pivot = rhs - sum coef * x_free.
        let reduced: Vec<LinearConstraint> = facets
            .iter()
            .map(|&k| {
                let c = &self.inequalities[k];
                let mut coeffs: Vec<Rational> = free.iter().map(|&f| c.coeffs[f].clone()).collect();
                let mut rhs = c.rhs.clone();
                for (row, &p) in hull.iter().zip(&pivots) {
                    let a = &c.coeffs[p];
                    if a.is_zero() {
                        continue;
                    }
                    rhs -= a * &row.rhs;
                    for (slot, &f) in free.iter().enumerate() {
                        coeffs[slot] -= a * &row.coeffs[f];
                    }
                }
                LinearConstraint { coeffs, rhs }
            })
            .collect();
        if binomial(reduced.len() as u128, d as u128) > MAX_BASES {
            fail!(
                Invalid,
                "vertex search over {} facets in dimension {d} needs more than {MAX_BASES} \
                 facet subsets",
                reduced.len()
            );
        }
        let lift = |z: &[Rational]| -> Vec<Rational> {
            let mut x = vec![Rational::zero(); n];
            for (slot, &f) in free.iter().enumerate() {
                x[f] = z[slot].clone();
            }
            // Reduced echelon form: each row has its pivot and free coordinates only.
            for (row, &p) in hull.iter().zip(&pivots) {
                let free_part: Rational = free.iter().map(|&f| &row.coeffs[f] * &x[f]).sum();
                x[p] = &row.rhs - free_part;
            }
            x
        };
        let mut found: BTreeSet<Vec<Rational>> = BTreeSet::new();
        let mut subset: Vec<usize> = Vec::with_capacity(d);
        search_bases(&reduced, d, 0, &mut subset, &mut |z| {
            found.insert(lift(z));
        });
        let vertices: Vec<Vec<Rational>> = found.into_iter().collect();
        Ok(Description {
            dimension: d,
            bounds,
            affine_hull: hull,
            hull_pivots: pivots,
            implicit_equalities: (0..m).filter(|&k| implicit[k]).collect(),
            facets,
            facets_on_hull: reduced.iter().map(integer_normal).collect(),
            free_coords: free,
            vertices,
            lps_solved: lps,
        })
    }
}

/// Visits every `d`-subset of `cons` (extending `subset` from index `from`) whose equations have
/// a unique solution satisfying all constraints, passing that solution to `visit`.
fn search_bases(
    cons: &[LinearConstraint],
    d: usize,
    from: usize,
    subset: &mut Vec<usize>,
    visit: &mut dyn FnMut(&[Rational]),
) {
    if subset.len() == d {
        if let Some(z) = solve_square(cons, subset, d) {
            if cons.iter().all(|c| dot(&c.coeffs, &z) <= c.rhs) {
                visit(&z);
            }
        }
        return;
    }
    for k in from..cons.len() {
        if cons.len() - k < d - subset.len() {
            break;
        }
        subset.push(k);
        search_bases(cons, d, k + 1, subset, visit);
        subset.pop();
    }
}

/// The same half-space with coefficients scaled by a positive factor to coprime integers.
pub fn integer_normal(c: &LinearConstraint) -> LinearConstraint {
    use num_integer::Integer;
    let denom_lcm = c
        .coeffs
        .iter()
        .fold(num_bigint::BigInt::one(), |acc, a| acc.lcm(a.denom()));
    let scaled: Vec<Rational> = c
        .coeffs
        .iter()
        .map(|a| a * Rational::from_integer(denom_lcm.clone()))
        .collect();
    let g = scaled
        .iter()
        .fold(num_bigint::BigInt::zero(), |acc, a| acc.gcd(a.numer()));
    if g.is_zero() {
        return c.clone();
    }
    let factor = Rational::new(denom_lcm, g);
    LinearConstraint {
        coeffs: c.coeffs.iter().map(|a| a * &factor).collect(),
        rhs: &c.rhs * &factor,
    }
}

/// `c` as readable text over the variable `names`, e.g. `q3 + 2 q4 <= 5/3`; a constraint whose
/// coefficients are all non-positive is shown negated with `>=`.
pub fn format_constraint(c: &LinearConstraint, names: &[String], relation: &str) -> String {
    let flip = relation == "<=" && c.coeffs.iter().all(|a| !a.is_positive());
    let sign = if flip {
        -Rational::one()
    } else {
        Rational::one()
    };
    let mut text = String::new();
    for (a, name) in c.coeffs.iter().zip(names) {
        let a = a * &sign;
        if a.is_zero() {
            continue;
        }
        let magnitude = a.abs();
        if text.is_empty() {
            if a.is_negative() {
                text.push('-');
            }
        } else {
            text.push_str(if a.is_negative() { " - " } else { " + " });
        }
        if !magnitude.is_one() {
            text.push_str(&crate::scalar::format_rational(&magnitude));
            text.push(' ');
        }
        text.push_str(name);
    }
    if text.is_empty() {
        text.push('0');
    }
    let rel = if flip { ">=" } else { relation };
    format!(
        "{text} {rel} {}",
        crate::scalar::format_rational(&(&c.rhs * &sign))
    )
}

/// The `i`-th unit vector of length `n`.
pub fn unit(n: usize, i: usize) -> Vec<Rational> {
    let mut v = vec![Rational::zero(); n];
    v[i] = Rational::one();
    v
}

fn binomial(n: u128, k: u128) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut r: u128 = 1;
    for i in 0..k {
        r = r.saturating_mul(n - i) / (i + 1);
        if r > MAX_BASES * 1000 {
            return r;
        }
    }
    r
}

/// Brings `rows` to reduced row echelon form in place (dropping zero rows) and returns each
/// row's pivot column. Fails when the system is inconsistent.
pub fn rref(rows: &mut Vec<LinearConstraint>) -> Result<Vec<usize>> {
    let n = rows.first().map_or(0, |r| r.coeffs.len());
    let mut pivots = Vec::new();
    let mut r = 0;
    for col in 0..n {
        let Some(p) = (r..rows.len()).find(|&i| !rows[i].coeffs[col].is_zero()) else {
            continue;
        };
        rows.swap(r, p);
        let lead = rows[r].coeffs[col].clone();
        for a in rows[r].coeffs.iter_mut() {
            *a /= &lead;
        }
        rows[r].rhs /= &lead;
        let pivot_row = rows[r].clone();
        for (i, row) in rows.iter_mut().enumerate() {
            if i == r || row.coeffs[col].is_zero() {
                continue;
            }
            let f = row.coeffs[col].clone();
            for (a, b) in row.coeffs.iter_mut().zip(&pivot_row.coeffs) {
                if !b.is_zero() {
                    *a -= &f * b;
                }
            }
            row.rhs -= &f * &pivot_row.rhs;
        }
        pivots.push(col);
        r += 1;
    }
    for row in &rows[r..] {
        if !row.rhs.is_zero() {
            fail!(Invalid, "the equalities are inconsistent (0 = {})", row.rhs);
        }
    }
    rows.truncate(r);
    Ok(pivots)
}

/// Solves `c_k . z = rhs_k` for the `d` constraints in `subset`; `None` when they are dependent.
fn solve_square(cons: &[LinearConstraint], subset: &[usize], d: usize) -> Option<Vec<Rational>> {
    let mut rows: Vec<LinearConstraint> = subset.iter().map(|&k| cons[k].clone()).collect();
    let pivots = rref(&mut rows).ok()?;
    if pivots.len() < d {
        return None;
    }
    let mut z = vec![Rational::zero(); d];
    for (row, &p) in rows.iter().zip(&pivots) {
        z[p] = row.rhs.clone();
    }
    Some(z)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{int, rat};

    fn v(xs: &[i64]) -> Vec<Rational> {
        xs.iter().map(|&x| int(x)).collect()
    }

    #[test]
    fn unit_cube_has_eight_vertices_and_six_facets() {
        let mut p = Polytope::new(3);
        p.add_unit_box();
        let d = p.describe().unwrap();
        assert_eq!(d.dimension, 3);
        assert_eq!(d.vertices.len(), 8);
        assert_eq!(d.facets.len(), 6);
        assert!(d.implicit_equalities.is_empty());
    }

    #[test]
    fn simplex_slice_finds_hexagon() {
        // {x in [0,1]^3 : x1 + x2 + x3 = 3/2}: a regular hexagon, 6 vertices, dimension 2.
        let mut p = Polytope::new(3);
        p.add_unit_box();
        p.add_equality(v(&[1, 1, 1]), rat(3, 2));
        let d = p.describe().unwrap();
        assert_eq!(d.dimension, 2);
        assert_eq!(d.vertices.len(), 6);
        assert!(d.vertices.contains(&vec![int(1), rat(1, 2), int(0)]));
        assert_eq!(d.facets.len(), 6);
    }

    #[test]
    fn implicit_equalities_and_redundancy_are_detected() {
        // x + y <= 1, x + y >= 1 (implicit equality), x, y >= 0, x <= 5 (redundant), duplicate.
        let mut p = Polytope::new(2);
        p.add_le(v(&[1, 1]), int(1));
        p.add_ge(v(&[1, 1]), int(1));
        p.add_ge(v(&[1, 0]), int(0));
        p.add_ge(v(&[0, 1]), int(0));
        let redundant = p.add_le(v(&[1, 0]), int(5));
        p.add_le(v(&[2, 0]), int(10));
        let d = p.describe().unwrap();
        assert_eq!(d.dimension, 1);
        assert_eq!(d.implicit_equalities, vec![0, 1]);
        assert!(!d.facets.contains(&redundant));
        assert_eq!(d.facets, vec![2, 3]);
        assert_eq!(d.vertices, vec![v(&[0, 1]), v(&[1, 0])]);
    }

    #[test]
    fn a_point_and_errors() {
        let mut p = Polytope::new(2);
        p.add_equality(v(&[1, 0]), rat(1, 3));
        p.add_equality(v(&[1, 1]), int(1));
        let d = p.describe().unwrap();
        assert_eq!(d.vertices, vec![vec![rat(1, 3), rat(2, 3)]]);
        assert_eq!(d.dimension, 0);

        let mut empty = Polytope::new(1);
        empty.add_ge(v(&[1]), int(2));
        empty.add_le(v(&[1]), int(1));
        assert!(empty.describe().is_err());
        let mut ray = Polytope::new(1);
        ray.add_ge(v(&[1]), int(0));
        assert!(ray
            .describe()
            .unwrap_err()
            .to_string()
            .contains("unbounded"));
    }

    #[test]
    fn cross_polytope_vertices_match_closed_form() {
        // |x| + |y| + |z| <= 1 as 8 inequalities: 6 vertices +-e_i, 8 facets.
        let mut p = Polytope::new(3);
        for s in 0..8 {
            let signs: Vec<i64> = (0..3)
                .map(|b| if (s >> b) & 1 == 1 { -1 } else { 1 })
                .collect();
            p.add_le(v(&signs), int(1));
        }
        let d = p.describe().unwrap();
        assert_eq!(d.vertices.len(), 6);
        assert_eq!(d.facets.len(), 8);
        for i in 0..3 {
            assert_eq!(d.bounds[i], (int(-1), int(1)));
        }
    }
}

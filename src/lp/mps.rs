//! Writes a [`LinearProgram`] in free MPS format, so that other solvers (HiGHS in the
//! benchmark) read the very program bluff solves. Coefficients are written as the nearest
//! `f64` (shortest round-trip form): MPS readers are float solvers.

use super::{LinearProgram, Relation};
use crate::scalar::rational_to_f64;
use std::io::{self, Write};

impl LinearProgram {
    /// Writes the program as free MPS (`OBJSENSE MAX`; variables `x<j>`, rows `r<i>`).
    pub fn write_mps(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "NAME bluff")?;
        writeln!(out, "OBJSENSE\n    MAX")?;
        writeln!(out, "ROWS\n N obj")?;
        for (i, row) in self.rows.iter().enumerate() {
            let kind = match row.rel {
                Relation::Le => 'L',
                Relation::Ge => 'G',
                Relation::Eq => 'E',
            };
            writeln!(out, " {kind} r{i}")?;
        }
        let mut by_var: Vec<Vec<(usize, f64)>> = vec![Vec::new(); self.num_vars];
        for (i, row) in self.rows.iter().enumerate() {
            for (v, c) in &row.coeffs {
                by_var[*v].push((i, rational_to_f64(c)));
            }
        }
        writeln!(out, "COLUMNS")?;
        for (v, col) in by_var.iter().enumerate() {
            let c = rational_to_f64(&self.objective[v]);
            if c != 0.0 {
                writeln!(out, " x{v} obj {c:?}")?;
            }
            for (i, a) in col {
                writeln!(out, " x{v} r{i} {a:?}")?;
            }
            if c == 0.0 && col.is_empty() {
                // MPS declares a column by its entries; give an empty one a zero cost entry.
                writeln!(out, " x{v} obj 0")?;
            }
        }
        writeln!(out, "RHS")?;
        for (i, row) in self.rows.iter().enumerate() {
            let b = rational_to_f64(&row.rhs);
            if b != 0.0 {
                writeln!(out, " rhs r{i} {b:?}")?;
            }
        }
        writeln!(out, "BOUNDS")?;
        for (v, free) in self.free.iter().enumerate() {
            if *free {
                writeln!(out, " FR bnd x{v}")?;
            }
        }
        writeln!(out, "ENDATA")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{int, rat};

    #[test]
    fn writes_sections_rows_bounds_and_coefficients() {
        let mut lp = LinearProgram::new(2);
        lp.set_free(1);
        lp.set_objective(0, int(3));
        lp.add_constraint(vec![(0, int(1)), (1, rat(1, 2))], Relation::Le, int(4));
        lp.add_constraint(vec![(1, int(1))], Relation::Eq, int(0));
        let mut buf = Vec::new();
        lp.write_mps(&mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let expected = "NAME bluff\nOBJSENSE\n    MAX\nROWS\n N obj\n L r0\n E r1\nCOLUMNS\n \
            x0 obj 3.0\n x0 r0 1.0\n x1 r0 0.5\n x1 r1 1.0\nRHS\n rhs r0 4.0\nBOUNDS\n \
            FR bnd x1\nENDATA\n";
        assert_eq!(text, expected);
    }
}

//! Memory planning for the LP solvers: estimates made before allocating, a budget read from
//! the machine, and the error that names the program's size when the estimate exceeds it.

use std::fmt;

/// Bytes of one `BigRational` holding small numbers (two `BigInt`s with one heap digit each).
const RATIONAL_BYTES: u128 = 96;

/// The size of a linear program in standard form, for estimates and messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LpSize {
    /// Constraint rows.
    pub rows: usize,
    /// Standard-form columns (variables, split free variables and slacks).
    pub cols: usize,
    /// Non-zero coefficients of the constraint matrix.
    pub nonzeros: usize,
}

impl fmt::Display for LpSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} rows x {} columns, {} non-zeros",
            self.rows, self.cols, self.nonzeros
        )
    }
}

/// Estimated peak bytes of the dense exact tableau: `rows x (columns + rows + 1)` rationals.
pub fn tableau_bytes(size: LpSize) -> u128 {
    let (m, n) = (size.rows as u128, size.cols as u128);
    m * (n + m + 1) * RATIONAL_BYTES
}

/// Entries of the float LU (factors, their copies by rows and columns, the Forrest–Tomlin
/// updates' growth and etas) the simplex allows before it refactorises, for a program with
/// `nonzeros` matrix entries and `rows` rows: a basis has at most `nonzeros + rows` entries,
/// and game-LP bases factor with little fill.
pub fn lu_entry_limit(nonzeros: usize, rows: usize) -> usize {
    12usize.saturating_mul(nonzeros.saturating_add(rows))
}

/// Estimated peak bytes of the float-guided exact method: the float simplex (the matrix by
/// columns and by rows with each entry's slot, 36 bytes per entry; per variable its bounds,
/// cost, value, standard-form column and the record a pivot row touches, 160; per row about
/// thirty work vectors, 240), its LU (at most [`lu_entry_limit`] entries of 16 bytes, and per
/// slot of the pivot order, rows and the update room, 128 bytes), the exact presolve (its
/// working copy of the rows, a copy of the columns while it compares them, the records of
/// its reductions and the reduced program: six times the program) and the exact LU with the
/// exact basic solution, duals and reduced costs. The simplex, its LU and the exact part are
/// sized for a quarter more non-zeros than the program has: the fill presolve's
/// substitutions may add (`presolve::Work::aggregate` stops there).
pub fn guided_bytes(size: LpSize) -> u128 {
    let (m, n) = (size.rows as u128, size.cols as u128);
    let nonzeros = size.nonzeros.saturating_add(size.nonzeros / 4);
    let nz = nonzeros as u128;
    let slots = m + super::sparse_lu::max_updates(size.rows) as u128;
    let simplex = nz * 36 + (n + m) * 160 + m * 240;
    let lu = lu_entry_limit(nonzeros, size.rows) as u128 * 16 + slots * 128;
    let exact = 4 * (nz + m) * (RATIONAL_BYTES + 8) + 4 * (m + n) * RATIONAL_BYTES;
    let presolve = 6 * standard_form_bytes(size);
    simplex + lu + presolve + exact
}

/// Estimated peak bytes of the sequence-form LP build beyond the program itself: per node a
/// chance-reach id and both sequences (12 bytes), per terminal its weight as a big integer
/// with node and sequences, a sort cell, and a payoff entry before it moves into the program.
pub fn sequence_form_build_bytes(nodes: usize, terminals: usize) -> u128 {
    let (nodes, terminals) = (nodes as u128, terminals as u128);
    nodes * 12 + terminals * (12 + 48 + 32 + 16 + 8 + RATIONAL_BYTES)
}

/// Estimated bytes of the standard form itself (the program's rational coefficients).
pub fn standard_form_bytes(size: LpSize) -> u128 {
    let (m, n, nz) = (size.rows as u128, size.cols as u128, size.nonzeros as u128);
    nz * (RATIONAL_BYTES + 8) + n * (RATIONAL_BYTES + 24) + m * (RATIONAL_BYTES + 16)
}

/// Bytes the kernel reports available (`MemAvailable` in `/proc/meminfo`), if readable.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The default budget: 80% of the available memory (unlimited where it cannot be read).
pub fn default_budget() -> u64 {
    available_bytes().map_or(u64::MAX, |b| b / 5 * 4)
}

/// Formats a byte count for messages (`1.5 GB`, `240 MB`, `12 kB`; powers of 1000).
pub fn format_bytes(bytes: u128) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else {
        format!("{:.0} kB", (b / 1e3).ceil())
    }
}

/// Parses a memory size such as `512M`, `8G`, `1.5GB`, `2000000` (bytes; K/M/G/T are powers of
/// 1000, KiB/MiB/GiB/TiB powers of 1024).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("{text:?}: expected a size such as 512M, 8G or 2000000"))?;
    let mult: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0f64.powi(4),
        other => {
            return Err(format!(
                "{text:?}: unknown unit {other:?} (expected B, K, M, G, T, KiB, MiB, GiB or TiB)"
            ))
        }
    };
    let bytes = value * mult;
    if !bytes.is_finite() || bytes < 1.0 || bytes >= u64::MAX as f64 {
        return Err(format!("{text:?}: expected a size of at least 1 byte"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units_and_reject_garbage() {
        assert_eq!(parse_bytes("2000000"), Ok(2_000_000));
        assert_eq!(parse_bytes("512M"), Ok(512_000_000));
        assert_eq!(parse_bytes("1.5GB"), Ok(1_500_000_000));
        assert_eq!(parse_bytes("2GiB"), Ok(2 * 1024 * 1024 * 1024));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("5X").is_err());
        assert!(parse_bytes("0").is_err());
    }

    #[test]
    fn tableau_estimate_is_quadratic_and_guided_linear() {
        let small = LpSize {
            rows: 1000,
            cols: 2000,
            nonzeros: 5000,
        };
        let big = LpSize {
            rows: 10_000,
            cols: 20_000,
            nonzeros: 50_000,
        };
        assert_eq!(
            tableau_bytes(big),
            100 * tableau_bytes(small) - 90 * 1000 * 96
        );
        // Linear in the size, up to the fixed room of 1000 update slots.
        assert!(guided_bytes(big) <= 10 * guided_bytes(small));
        assert!(guided_bytes(big) >= 9 * guided_bytes(small));
        assert_eq!(format_bytes(25_300_000_000), "25.3 GB");
        assert_eq!(format_bytes(240_000_000), "240 MB");
    }
}

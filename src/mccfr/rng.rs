//! The sampling solvers' random numbers: xoshiro256++ (Blackman and Vigna), seeded by
//! SplitMix64 from the run's seed, the iteration and the traversing player.
//!
//! Seeding each traversal from its own coordinates, rather than drawing from one stream,
//! makes a traversal's samples independent of which thread runs it and of how a run was cut
//! into sessions: a resumed run needs no generator state in its checkpoint, and the results of
//! a seed do not change with the batching of iterations among threads.

/// One step of SplitMix64: the next state and its mixed output.
#[inline]
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A xoshiro256++ generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The generator of traversal (`seed`, `iteration`, `player`).
    pub fn for_traversal(seed: u64, iteration: u64, player: usize) -> Self {
        let mut x = seed;
        let a = splitmix(&mut x);
        let mut y = a ^ iteration.wrapping_mul(0xd134_2543_de82_ef95) ^ player as u64;
        let s = [
            splitmix(&mut y),
            splitmix(&mut y),
            splitmix(&mut y),
            splitmix(&mut y),
        ];
        Rng { s }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let out = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    /// A uniform number in `[0, 1)` (53 random bits).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform index below `n` (`n >= 1`), by Lemire's multiply-shift (bias below 2^-32
    /// for the small `n` of a game's actions).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first outputs of xoshiro256++ from the state 1, 2, 3, 4 (the reference
    /// implementation's own check values).
    #[test]
    fn matches_the_reference_sequence() {
        let mut r = Rng { s: [1, 2, 3, 4] };
        let first: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(first, [41943041, 58720359, 3588806011781223]);
    }

    #[test]
    fn traversals_get_different_streams_and_units_stay_in_range() {
        let a = Rng::for_traversal(7, 1, 0).next_u64();
        assert_ne!(a, Rng::for_traversal(7, 1, 1).next_u64());
        assert_ne!(a, Rng::for_traversal(7, 2, 0).next_u64());
        assert_ne!(a, Rng::for_traversal(8, 1, 0).next_u64());
        let mut r = Rng::for_traversal(0, 0, 0);
        let mut counts = [0usize; 3];
        for _ in 0..30_000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            counts[r.below(3)] += 1;
        }
        // Each third within 5 standard deviations (about 410) of 10 000.
        assert!(
            counts.iter().all(|&c| c.abs_diff(10_000) < 410),
            "{counts:?}"
        );
    }
}

//! A cache hint shared by the hot loops whose loads miss in runs too short for the hardware's
//! prefetcher: the LP's triangular passes (the rows of the next index) and the hold'em
//! engine's regret matching (the next node's entries).

/// Asks the cache for the line at `p` (a hint: never faults, whatever `p` is; a no-op off
/// x86-64).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults, on any address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch(p.cast::<i8>(), _MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

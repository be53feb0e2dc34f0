//! The state arrays on transparent huge pages.
//!
//! A flop spot's state is over a gigabyte, and every iteration streams through all of it. On
//! 4 KiB pages the first iteration takes one page fault per 4 KiB (about five seconds of
//! kernel time on the 3betpotFAST flop, a third of the first ten iterations' time), and every
//! iteration walks far more pages than the TLB holds. Linux backs a region with 2 MiB pages
//! when the program asks (`madvise(MADV_HUGEPAGE)`; the common `transparent_hugepage=madvise`
//! setting gives them to no one else). The arrays are allocated zeroed and untouched
//! (`calloc` hands out fresh zero pages), advised, and faulted in by the first iteration as
//! huge pages. Advice changes no value: where the kernel refuses it (another system, THP
//! off), the arrays are the same zeros on small pages.

/// Arrays smaller than this are left on small pages (a huge page would hold most of them).
const ADVISE_FROM: usize = 4 << 20;

/// A huge page's size on x86-64 and aarch64 Linux.
#[cfg(target_os = "linux")]
const HUGE: usize = 2 << 20;

/// `len` copies of `zero` (a number's zero: all bits 0), on huge pages where the kernel gives
/// them.
pub(super) fn zeroed<T: Clone>(zero: T, len: usize) -> Vec<T> {
    // `vec![zero; n]` of a primitive number's zero allocates zeroed memory (`calloc`),
    // untouched.
    let v = vec![zero; len];
    advise(v.as_ptr() as usize, std::mem::size_of_val(&v[..]));
    v
}

/// Asks for huge pages over the whole 2 MiB pages inside `start..start + bytes`.
#[cfg(target_os = "linux")]
fn advise(start: usize, bytes: usize) {
    if bytes < ADVISE_FROM {
        return;
    }
    let from = start.next_multiple_of(HUGE);
    let to = (start + bytes) / HUGE * HUGE;
    if to > from {
        // SAFETY: `from..to` lies inside one live allocation of this process; MADV_HUGEPAGE
        // only changes how the kernel backs it, never its contents. A refusal is harmless.
        unsafe {
            libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
        }
    }
}

/// Elsewhere, no advice.
#[cfg(not(target_os = "linux"))]
fn advise(_start: usize, _bytes: usize) {
    let _ = ADVISE_FROM;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_arrays_are_zeros_of_the_asked_length() {
        // Above and below the threshold, and an empty one: all zeros, of the length asked.
        for len in [0usize, 1000, (ADVISE_FROM / 4) + 12_345] {
            let v: Vec<f32> = zeroed(0.0, len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&x| x.to_bits() == 0));
            let w: Vec<i16> = zeroed(0, len);
            assert!(w.iter().all(|&x| x == 0));
        }
    }

    /// The flags of the mapping holding `addr`, from `/proc/self/smaps`.
    #[cfg(target_os = "linux")]
    fn vm_flags(addr: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let head = line.split_whitespace().next().unwrap_or("");
            if let Some((a, b)) = head.split_once('-') {
                if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                {
                    inside = a <= addr && addr < b;
                    continue;
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return Some(flags.trim().to_string());
                }
            }
        }
        None
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_large_array_is_advised_and_a_small_one_is_not() {
        // The kernel records the advice in the mapping's flags (`hg`) whether or not the
        // system hands out huge pages.
        let big: Vec<f32> = zeroed(0.0, 3 * HUGE);
        let at = (big.as_ptr() as usize).next_multiple_of(HUGE);
        let flags = vm_flags(at).expect("the array's mapping");
        assert!(flags.split(' ').any(|f| f == "hg"), "flags {flags}");
        let small: Vec<f32> = zeroed(0.0, 1000);
        let flags = vm_flags(small.as_ptr() as usize).expect("the small array's mapping");
        assert!(!flags.split(' ').any(|f| f == "hg"), "flags {flags}");
    }
}

//! One player's information-set table: a key maps to an entry, and an entry's numbers lie
//! together in one flat array, `width` numbers per action (regret, average-strategy sum, and
//! a baseline when VR-MCCFR uses one), so one visit touches one or two cache lines.
//!
//! Entries are made on the first visit, so memory grows with the information sets a run
//! reaches, never with histories. Keys index the entries directly when the game says they are
//! dense (the arena's information-set ids); otherwise an open-addressing hash table with linear
//! probing maps them (one flat array of key and offset side by side, so a lookup that finds its
//! key at once misses the cache once, not once per array; no allocation per entry). Entries are
//! numbered in the
//! order they were made; a checkpoint stores them in that order, so a restored table has the
//! same layout and a resumed run the same bits.

/// Marks an empty hash slot and a dense key never visited (rules never use this key).
const EMPTY: u64 = u64::MAX;

/// How keys find their entries.
#[derive(Clone, Debug)]
enum Index {
    /// `offset[key]` of the entry's numbers, `EMPTY` when not made yet.
    Dense(Vec<u64>),
    /// Open addressing: `slots[i]` = a key (or `EMPTY`) and its entry's offset, capacity a
    /// power of 2.
    Hashed { slots: Vec<[u64; 2]>, len: usize },
}

/// Entries, their keys and numbers (see the module docs).
#[derive(Clone, Debug)]
pub struct Table {
    width: usize,
    index: Index,
    /// Entry `i` has key `keys[i]` and numbers `data[starts[i]..starts[i + 1]]`.
    keys: Vec<u64>,
    starts: Vec<u64>,
    data: Vec<f64>,
}

#[inline]
fn slot_of(key: u64, mask: usize) -> usize {
    // Fibonacci hashing: the multiply spreads consecutive keys, the high bits index.
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize & mask
}

impl Table {
    /// An empty table with `width` numbers per action; `dense` = the number of dense keys.
    pub fn new(width: usize, dense: Option<usize>) -> Self {
        let index = match dense {
            Some(n) => Index::Dense(vec![EMPTY; n]),
            None => Index::Hashed {
                slots: vec![[EMPTY, 0]; 1024],
                len: 0,
            },
        };
        Table {
            width,
            index,
            keys: Vec::new(),
            starts: vec![0],
            data: Vec::new(),
        }
    }

    /// Numbers per action.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The offset of `key`'s numbers, if it has an entry.
    #[inline]
    pub fn find(&self, key: u64) -> Option<usize> {
        match &self.index {
            Index::Dense(offsets) => match offsets.get(key as usize) {
                Some(&o) if o != EMPTY => Some(o as usize),
                _ => None,
            },
            Index::Hashed { slots, .. } => {
                let mask = slots.len() - 1;
                let mut i = slot_of(key, mask);
                loop {
                    let [k, o] = slots[i];
                    if k == key {
                        return Some(o as usize);
                    }
                    if k == EMPTY {
                        return None;
                    }
                    i = (i + 1) & mask;
                }
            }
        }
    }

    /// The offset of `key`'s numbers, making a zeroed entry of `n` actions when new.
    #[inline]
    pub fn find_or_insert(&mut self, key: u64, n: usize) -> usize {
        match self.find(key) {
            Some(o) => o,
            None => self.insert(key, n),
        }
    }

    /// Makes the entry of a new key (`key` must have none).
    fn insert(&mut self, key: u64, n: usize) -> usize {
        let offset = self.data.len();
        self.data.resize(offset + n * self.width, 0.0);
        self.keys.push(key);
        self.starts.push(self.data.len() as u64);
        match &mut self.index {
            Index::Dense(offsets) => offsets[key as usize] = offset as u64,
            Index::Hashed { len, .. } => {
                *len += 1;
                if *len * 2 > self.capacity() {
                    self.grow();
                }
                self.place(key, offset as u64);
            }
        }
        offset
    }

    fn capacity(&self) -> usize {
        match &self.index {
            Index::Dense(offsets) => offsets.len(),
            Index::Hashed { slots, .. } => slots.len(),
        }
    }

    /// Puts `key` into its hash slot (the table has room).
    fn place(&mut self, key: u64, offset: u64) {
        if let Index::Hashed { slots, .. } = &mut self.index {
            let mask = slots.len() - 1;
            let mut i = slot_of(key, mask);
            while slots[i][0] != EMPTY && slots[i][0] != key {
                i = (i + 1) & mask;
            }
            slots[i] = [key, offset];
        }
    }

    /// Doubles the hash index (entries keep their offsets).
    fn grow(&mut self) {
        let Index::Hashed { slots, len } = &mut self.index else {
            return;
        };
        let size = slots.len() * 2;
        let old = std::mem::replace(slots, vec![[EMPTY, 0]; size]);
        let len = *len;
        for [k, o] in old {
            if k != EMPTY {
                self.place(k, o);
            }
        }
        if let Index::Hashed { len: l, .. } = &mut self.index {
            *l = len;
        }
    }

    /// The numbers of the entry at `offset`, `n` actions (regrets, then sums, then baselines).
    #[inline]
    pub fn at(&self, offset: usize, n: usize) -> &[f64] {
        &self.data[offset..offset + n * self.width]
    }

    /// The same, to change.
    #[inline]
    pub fn at_mut(&mut self, offset: usize, n: usize) -> &mut [f64] {
        &mut self.data[offset..offset + n * self.width]
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no entry was made.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The entries in the order they were made: key and numbers.
    pub fn entries(&self) -> impl Iterator<Item = (u64, &[f64])> + '_ {
        self.keys.iter().enumerate().map(move |(i, &k)| {
            (
                k,
                &self.data[self.starts[i] as usize..self.starts[i + 1] as usize],
            )
        })
    }

    /// Every entry's numbers, to change in place (the discount pass), with its action count.
    pub fn for_each_mut(&mut self, mut f: impl FnMut(usize, &mut [f64])) {
        let width = self.width;
        for i in 0..self.keys.len() {
            let (a, b) = (self.starts[i] as usize, self.starts[i + 1] as usize);
            f((b - a) / width, &mut self.data[a..b]);
        }
    }

    /// Adds an entry restored from a checkpoint, in order (`numbers.len()` a multiple of the
    /// width; the key new). Returns false when the key is already there or out of range.
    pub fn restore_entry(&mut self, key: u64, numbers: &[f64]) -> bool {
        let n = numbers.len() / self.width;
        let fits = match &self.index {
            Index::Dense(offsets) => (key as usize) < offsets.len(),
            Index::Hashed { .. } => key != EMPTY,
        };
        if !fits || n == 0 || !numbers.len().is_multiple_of(self.width) || self.find(key).is_some()
        {
            return false;
        }
        let o = self.insert(key, n);
        self.data[o..o + numbers.len()].copy_from_slice(numbers);
        true
    }

    /// Heap bytes held (arrays at capacity).
    pub fn heap_bytes(&self) -> usize {
        let index = match &self.index {
            Index::Dense(o) => o.capacity() * 8,
            Index::Hashed { slots, .. } => slots.capacity() * 16,
        };
        index + self.keys.capacity() * 8 + self.starts.capacity() * 8 + self.data.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_and_dense_tables_find_what_was_inserted() {
        for dense in [None, Some(5000)] {
            let mut t = Table::new(2, dense);
            let mut offsets = Vec::new();
            for k in 0..5000u64 {
                let key = if dense.is_some() {
                    k
                } else {
                    k.wrapping_mul(0x1234_5678_9abc)
                };
                offsets.push((key, t.find_or_insert(key, 1 + (k % 3) as usize)));
            }
            for &(key, o) in &offsets {
                assert_eq!(t.find(key), Some(o));
                assert_eq!(t.find_or_insert(key, 1), o);
            }
            assert_eq!(t.len(), 5000);
            let sizes: Vec<usize> = t.entries().map(|(_, d)| d.len()).collect();
            assert_eq!(sizes[..4], [2, 4, 6, 2]);
            assert_eq!(
                t.find(if dense.is_some() { 4999 } else { 7 }).is_some(),
                dense.is_some()
            );
        }
    }

    #[test]
    fn restored_entries_keep_order_and_refuse_repeats() {
        let mut t = Table::new(2, None);
        assert!(t.restore_entry(9, &[1.0, 2.0, 3.0, 4.0]));
        assert!(!t.restore_entry(9, &[1.0, 2.0]));
        assert!(!t.restore_entry(10, &[1.0, 2.0, 3.0]));
        assert!(!t.restore_entry(u64::MAX, &[1.0, 2.0]));
        assert_eq!(t.at(t.find(9).unwrap(), 2), &[1.0, 2.0, 3.0, 4.0]);
        let mut d = Table::new(2, Some(3));
        assert!(!d.restore_entry(3, &[1.0, 2.0]));
        assert!(d.restore_entry(2, &[1.0, 2.0]));
    }
}

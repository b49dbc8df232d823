//! The crate's one sort: a heap sort by hand (for size: std's sorts, stable
//! or not, are generic machinery several times a heap sort's code, linked
//! per element type; docs/performance.md). O(n log n) comparisons whatever the
//! input, in place, not stable; the order of two items that compare equal
//! must not matter to the caller (or the comparison must break the tie).

/// Sorts `v` ascending by `less` (a strict "comes before").
pub(crate) fn heapsort_by<T>(v: &mut [T], less: &dyn Fn(&T, &T) -> bool) {
    fn sift_down<T>(v: &mut [T], mut root: usize, less: &dyn Fn(&T, &T) -> bool) {
        loop {
            let mut child = 2 * root + 1;
            if child >= v.len() {
                return;
            }
            if child + 1 < v.len() && less(&v[child], &v[child + 1]) {
                child += 1;
            }
            if !less(&v[root], &v[child]) {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    for i in (0..v.len() / 2).rev() {
        sift_down(v, i, less);
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift_down(&mut v[..end], 0, less);
    }
}

#[cfg(test)]
mod tests {
    use super::heapsort_by;

    /// Ordered by `total_cmp`, it sorts exactly as std's stable sort, bit
    /// for bit (signed zeros, NaNs, infinities, repeats: values equal under
    /// `total_cmp` have the same bits, so stability cannot show).
    #[test]
    fn orders_as_std() {
        let specials = [
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1.5,
            1.5,
            -3.0,
            f64::MIN_POSITIVE,
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for len in 0..40 {
            let v: Vec<f64> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    if i % 3 == 0 {
                        specials[(seed % specials.len() as u64) as usize]
                    } else {
                        (seed % 1000) as f64 / 7.0
                    }
                })
                .collect();
            let mut ours = v.clone();
            heapsort_by(&mut ours, &|a, b| a.total_cmp(b).is_lt());
            let mut expected = v;
            expected.sort_by(f64::total_cmp);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&ours), bits(&expected), "length {len}");
        }
    }
}

//! What `std`'s prelude gives and `core`'s does not, for every module: the
//! crate is `no_std` on wasm (`src/lib.rs`), so each module takes `String`,
//! `Vec`, `format!`… from here, and on wasm `f64`'s rounding methods.
//!
//! `core` has no `floor`, `ceil` or `fract` on stable Rust (and the wasm
//! instructions for them are unstable intrinsics), so they are written
//! here with a saturating integer conversion, exact for every `f64`: a
//! value of magnitude 2^52 or more, an infinity or NaN is already whole and
//! is returned as it is.

pub(crate) use alloc::boxed::Box;
pub(crate) use alloc::string::{String, ToString};
pub(crate) use alloc::vec::Vec;
pub(crate) use alloc::{format, vec};

/// `x` rounded toward zero, the sign of zero kept (as `f64::trunc`).
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) fn trunc(x: f64) -> f64 {
    if x.abs() < 4_503_599_627_370_496.0 {
        // Exact: |x| < 2^52 fits an i64, and every i64 below 2^52 is an f64.
        (x as i64 as f64).copysign(x)
    } else {
        x
    }
}

/// `x` rounded down (as `f64::floor`).
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) fn floor(x: f64) -> f64 {
    let t = trunc(x);
    if t > x { t - 1.0 } else { t }
}

/// `x` rounded up (as `f64::ceil`).
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) fn ceil(x: f64) -> f64 {
    let t = trunc(x);
    if t < x { t + 1.0 } else { t }
}

/// `f64`'s rounding methods on wasm, where `core` lacks them (natively,
/// `std`'s own are used).
#[cfg(target_arch = "wasm32")]
pub(crate) trait Float {
    /// As `f64::floor`.
    fn floor(self) -> f64;
    /// As `f64::ceil`.
    fn ceil(self) -> f64;
    /// As `f64::fract`.
    fn fract(self) -> f64;
}

#[cfg(target_arch = "wasm32")]
impl Float for f64 {
    fn floor(self) -> f64 {
        floor(self)
    }
    fn ceil(self) -> f64 {
        ceil(self)
    }
    fn fract(self) -> f64 {
        self - trunc(self)
    }
}

#[cfg(test)]
mod tests {
    /// Each rounding agrees with std's, bit for bit, on edge values and on
    /// a spread of values of every magnitude and sign.
    #[test]
    fn rounding_is_stds_bit_for_bit() {
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.5,
            -1.5,
            2.5,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            9_007_199_254_740_993.0,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut bits: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            bits ^= bits << 13;
            bits ^= bits >> 7;
            bits ^= bits << 17;
            values.push(f64::from_bits(bits));
            values.push((bits % 10_000_000) as f64 / 64.0 - 50_000.0);
        }
        for x in values {
            assert_eq!(
                super::trunc(x).to_bits(),
                x.trunc().to_bits(),
                "trunc {x:e}"
            );
            assert_eq!(
                super::floor(x).to_bits(),
                x.floor().to_bits(),
                "floor {x:e}"
            );
            assert_eq!(super::ceil(x).to_bits(), x.ceil().to_bits(), "ceil {x:e}");
            assert_eq!(
                (x - super::trunc(x)).to_bits(),
                x.fract().to_bits(),
                "fract {x:e}"
            );
        }
    }
}

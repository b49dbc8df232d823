//! Numbers in JSON text, read and written exactly, without core's float
//! parser and printer, whose tables and big-number code would outweigh in
//! the wasm module the two routines below (figures: docs/performance.md).
//!
//! * [`parse_decimal`] turns a decimal (its digits and a power of ten) into
//!   the nearest double: one multiply or divide when both the digits and
//!   the power of ten are exact doubles (Clinger's fast path, which covers
//!   nearly every number `JSON.stringify` writes), else exact big-integer
//!   arithmetic;
//! * [`write_number`] writes a double as JavaScript's
//!   `Number.prototype.toString` does: the shortest digits that read back
//!   to the same double (the closest such when several), integers in full
//!   below 1e21, exponent form (`1e+21`, `5e-7`) outside 1e-7 ..= 1e21.
//!
//! Both are slow only off the common paths (non-integers, long digit
//! strings), where correctness is what matters.

use crate::prelude::*;

use core::cmp::Ordering;

/// The powers of ten a double holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `10^n` for `n <= 22`, exactly.
pub(crate) fn pow10(n: usize) -> f64 {
    POW10[n]
}

/// How many significant digits the exact reader keeps: more than the 767
/// a halfway point between two doubles can need, the rest folded into one
/// sticky digit.
const MAX_DIGITS: usize = 780;

/// An unsigned big integer, little-endian base 2^32.
#[derive(Clone, Debug)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(n: u64) -> Big {
        let mut big = Big(vec![n as u32, (n >> 32) as u32]);
        big.trim();
        big
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let t = u64::from(*limb) * u64::from(m) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn add_small(&mut self, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            if carry == 0 {
                return;
            }
            let t = u64::from(*limb) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow5(&mut self, mut n: u32) {
        // 5^13 is the largest power of five below 2^32.
        while n >= 13 {
            self.mul_small(1_220_703_125);
            n -= 13;
        }
        self.mul_small(5u32.pow(n));
    }

    fn shl(&mut self, bits: u32) {
        if self.is_zero() {
            return;
        }
        let limbs = (bits / 32) as usize;
        let bits = bits % 32;
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, core::iter::repeat_n(0, limbs));
    }

    fn shr1(&mut self) {
        let mut carry = 0u32;
        for limb in self.0.iter_mut().rev() {
            let next = *limb & 1;
            *limb = (*limb >> 1) | (carry << 31);
            carry = next;
        }
        self.trim();
    }

    /// Divides in place, returning the remainder.
    fn div_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let t = (rem << 32) | u64::from(*limb);
            *limb = (t / u64::from(d)) as u32;
            rem = t % u64::from(d);
        }
        self.trim();
        rem as u32
    }

    fn bit_len(&self) -> u32 {
        match self.0.last() {
            Some(&top) => (self.0.len() as u32) * 32 - top.leading_zeros(),
            None => 0,
        }
    }

    fn compare(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// `self -= other`, for `self >= other`.
    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let t = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            *limb = t as u32;
            borrow = i64::from(t < 0);
        }
        self.trim();
    }

    /// The decimal digits (no leading zeros; empty for zero).
    fn decimal_digits(mut self) -> Vec<u8> {
        let mut chunks = Vec::new();
        while !self.is_zero() {
            chunks.push(self.div_small(1_000_000_000));
        }
        let mut digits = Vec::with_capacity(chunks.len() * 9);
        for (i, chunk) in chunks.iter().rev().enumerate() {
            let mut buf = [0u8; 9];
            let mut c = *chunk;
            for slot in buf.iter_mut().rev() {
                *slot = b'0' + (c % 10) as u8;
                c /= 10;
            }
            let skip = if i == 0 {
                buf.iter().take_while(|&&d| d == b'0').count()
            } else {
                0
            };
            digits.extend_from_slice(&buf[skip..]);
        }
        digits
    }
}

/// The double nearest to `digits × 10^exp10` (`digits`: ASCII decimal
/// digits), ties to even; `None` when it is beyond the largest double.
pub(crate) fn parse_decimal(digits: &[u8], exp10: i64) -> Option<f64> {
    let first = digits.iter().position(|&d| d != b'0');
    let Some(first) = first else {
        return Some(0.0);
    };
    let mut digits = &digits[first..];
    let mut exp10 = exp10;
    while let [rest @ .., b'0'] = digits {
        digits = rest;
        exp10 += 1;
    }
    if digits.len() <= 15 && (-22..=22).contains(&exp10) {
        let mantissa = digits
            .iter()
            .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) as f64;
        let power = POW10[exp10.unsigned_abs() as usize];
        return Some(if exp10 < 0 {
            mantissa / power
        } else {
            mantissa * power
        });
    }
    // The value lies in [10^(decade-1), 10^decade).
    let decade = digits.len() as i64 + exp10;
    if decade > 310 {
        return None;
    }
    if decade < -324 {
        return Some(0.0);
    }
    let mut num = Big(Vec::new());
    let kept = digits.len().min(MAX_DIGITS);
    for &d in &digits[..kept] {
        num.mul_small(10);
        num.add_small(u32::from(d - b'0'));
    }
    if kept < digits.len() {
        // A sticky digit: the value is strictly above the truncated one.
        num.mul_small(10);
        num.add_small(1);
        exp10 += (digits.len() - kept) as i64 - 1;
    }
    let mut den = Big::from_u64(1);
    // |exp10| is bounded by the decade checks and MAX_DIGITS.
    let power = exp10.unsigned_abs() as u32;
    if exp10 >= 0 {
        num.mul_pow5(power);
        num.shl(power);
    } else {
        den.mul_pow5(power);
        den.shl(power);
    }
    Some(to_nearest(num, den))
}

/// The double nearest to `num / den`, ties to even (infinity past the
/// largest double).
fn to_nearest(mut num: Big, mut den: Big) -> f64 {
    // Scale so that the quotient has exactly 64 bits: num · 2^shift / den
    // in [2^63, 2^64).
    let mut shift = 63 - (i64::from(num.bit_len()) - i64::from(den.bit_len()));
    if shift >= 0 {
        num.shl(shift as u32);
    } else {
        den.shl((-shift) as u32);
    }
    let mut top = den.clone();
    top.shl(63);
    if num.compare(&top) == Ordering::Less {
        num.shl(1);
        shift += 1;
    }
    let mut q = 0u64;
    for bit in (0..64).rev() {
        if num.compare(&top) != Ordering::Less {
            num.sub(&top);
            q |= 1 << bit;
        }
        top.shr1();
    }
    let sticky = !num.is_zero();
    // The quotient's top bit stands for 2^e_top.
    let e_top = 63 - shift;
    round_to_double(q, e_top, sticky)
}

/// The double nearest to `q · 2^(e_top − 63)` (`q` with its top bit set),
/// plus a little more when `sticky`.
fn round_to_double(q: u64, mut e_top: i64, sticky: bool) -> f64 {
    if e_top > 1023 {
        return f64::INFINITY;
    }
    // Bits kept: 53 for a normal double, fewer below 2^-1022.
    let keep = if e_top >= -1022 { 53 } else { e_top + 1075 };
    if keep < 0 {
        return 0.0;
    }
    let drop = (64 - keep) as u32;
    let q = u128::from(q);
    let mut mantissa = (q >> drop) as u64;
    let rem = q & ((1u128 << drop) - 1);
    let half = 1u128 << (drop - 1);
    if rem > half || (rem == half && (sticky || mantissa & 1 == 1)) {
        mantissa += 1;
    }
    if keep < 53 {
        // Subnormal: the bits are the mantissa (a carry into 2^52 is the
        // smallest normal double, which the same bits spell).
        return f64::from_bits(mantissa);
    }
    if mantissa == 1 << 53 {
        mantissa >>= 1;
        e_top += 1;
        if e_top > 1023 {
            return f64::INFINITY;
        }
    }
    f64::from_bits((((e_top + 1023) as u64) << 52) | (mantissa & ((1 << 52) - 1)))
}

/// Appends `n` in decimal.
pub(crate) fn write_u64(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // ASCII digits.
    out.push_str(core::str::from_utf8(&buf[at..]).unwrap_or_default());
}

/// Appends a finite double as JavaScript's `String(x)` writes it (NaN and
/// the infinities as `NaN`, `Infinity`, `-Infinity`; JSON writers check for
/// them first).
pub fn write_number(out: &mut String, x: f64) {
    if x.is_nan() {
        out.push_str("NaN");
        return;
    }
    if x < 0.0 {
        out.push('-');
    }
    let x = x.abs();
    if x.is_infinite() {
        out.push_str("Infinity");
    } else if x.fract() == 0.0 && x < 9_007_199_254_740_992.0 {
        write_u64(out, x as u64);
    } else {
        let (digits, point) = shortest_digits(x);
        write_js_notation(out, &digits, point);
    }
}

/// A double as JavaScript writes it.
pub fn number_to_string(x: f64) -> String {
    let mut out = String::new();
    write_number(&mut out, x);
    out
}

/// Writes `0.d1d2…dk × 10^point` in `Number.prototype.toString`'s notation.
fn write_js_notation(out: &mut String, digits: &[u8], point: i64) {
    let k = digits.len() as i64;
    let push =
        |out: &mut String, d: &[u8]| out.push_str(core::str::from_utf8(d).unwrap_or_default());
    if k <= point && point <= 21 {
        push(out, digits);
        out.extend(core::iter::repeat_n('0', (point - k) as usize));
    } else if 0 < point && point <= 21 {
        push(out, &digits[..point as usize]);
        out.push('.');
        push(out, &digits[point as usize..]);
    } else if -6 < point && point <= 0 {
        out.push_str("0.");
        out.extend(core::iter::repeat_n('0', (-point) as usize));
        push(out, digits);
    } else {
        push(out, &digits[..1]);
        if k > 1 {
            out.push('.');
            push(out, &digits[1..]);
        }
        out.push('e');
        let e = point - 1;
        out.push(if e < 0 { '-' } else { '+' });
        write_u64(out, e.unsigned_abs());
    }
}

/// The shortest digits that read back as `x` (finite, > 0), the closest to
/// `x` among those, and where the decimal point goes (`0.digits × 10^point`).
fn shortest_digits(x: f64) -> (Vec<u8>, i64) {
    // x = m · 2^e exactly.
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1 << 52) - 1);
    let (m, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    // The exact decimal expansion: digits × 10^exp10.
    let mut big = Big::from_u64(m);
    let exp10 = if e >= 0 {
        big.shl(e as u32);
        0
    } else {
        big.mul_pow5((-e) as u32);
        e
    };
    let exact = big.decimal_digits();
    let point = exact.len() as i64 + exp10;
    for precision in 1..=17usize {
        let (down, up_needed) = round_digits(&exact, precision);
        let nearest = if up_needed {
            increment(&down)
        } else {
            down.clone()
        };
        let other = if up_needed {
            Some(down)
        } else {
            Some(increment(&down))
        };
        for candidate in core::iter::once(nearest).chain(other) {
            let (digits, point) = candidate_digits(candidate, precision, point);
            if parse_decimal(&digits, point - digits.len() as i64) == Some(x) {
                return trimmed(digits, point);
            }
        }
    }
    // Seventeen digits always read back; not reached.
    trimmed(exact, point)
}

/// The first `precision` digits, and whether rounding to nearest (ties to
/// even) takes them up.
fn round_digits(exact: &[u8], precision: usize) -> (Vec<u8>, bool) {
    if exact.len() <= precision {
        let mut digits = exact.to_vec();
        digits.resize(precision, b'0');
        return (digits, false);
    }
    let down = exact[..precision].to_vec();
    let rest = &exact[precision..];
    let up = match rest[0].cmp(&b'5') {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal if rest[1..].iter().any(|&d| d != b'0') => true,
        Ordering::Equal => down.last().is_some_and(|d| (d - b'0') % 2 == 1),
    };
    (down, up)
}

/// `digits + 1` in the last place; may grow by one digit (`999` → `1000`).
fn increment(digits: &[u8]) -> Vec<u8> {
    let mut out = digits.to_vec();
    for d in out.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return out;
        }
    }
    out.insert(0, b'1');
    out
}

/// A rounded candidate with its decimal point: one digit longer after a
/// carry means the point moved right by one.
fn candidate_digits(mut digits: Vec<u8>, precision: usize, point: i64) -> (Vec<u8>, i64) {
    if digits.len() > precision {
        digits.truncate(precision);
        (digits, point + 1)
    } else {
        (digits, point)
    }
}

fn trimmed(mut digits: Vec<u8>, point: i64) -> (Vec<u8>, i64) {
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    (digits, point)
}

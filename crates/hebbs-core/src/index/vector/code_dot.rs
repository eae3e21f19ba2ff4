//! [`code_dot`]: the integer dot product of two rows of int8 codes, the int8 format's distance
//! kernel (`format.rs`) in the graph's walk and the packed scan; [`int8_dot`] runs it alone.
//!
//! The codes lie in `-127..=127` (the format never writes -128). On x86-64 with AVX2 (`pulp`'s
//! `V3`, and `V4`, which includes it) the kernel multiplies 32 code pairs an instruction with
//! `vpmaddubsw`, which takes one operand unsigned: `|a|` against `b` with `a`'s sign, so each
//! product keeps its value. Two adjacent products sum to at most `2 * 127 * 127 = 32,258`,
//! inside `i16` (so the instruction's saturation never applies), and `vpmaddwd` against ones
//! widens the pairs to `i32`. That is about half the instructions of the compiler's own loop,
//! which widens every code to `i16` first; measured on AVX2 it computes a random row of a
//! million in about half the time (docs/scale.md). Elsewhere it is the plain loop, which the
//! compiler vectorises for the dispatch's instruction set.
//!
//! The kernel is chosen by the dispatch's type (`Any::downcast_ref` on the zero-sized `Simd`
//! token), known when the caller is compiled, so no branch is left in the walk.

use std::any::Any;

use pulp::{Arch, Simd, WithSimd};

/// [`code_dot`] under the CPU's own dispatch, for one pair of rows (the kernel's benchmark,
/// `benches/row_kernels.rs`, and its tests).
pub fn int8_dot(a: &[i8], b: &[i8]) -> i32 {
    Arch::new().dispatch(Dispatched(a, b))
}

/// The kernel as one dispatch's work.
struct Dispatched<'a>(&'a [i8], &'a [i8]);

impl WithSimd for Dispatched<'_> {
    type Output = i32;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> i32 {
        code_dot(simd, self.0, self.1)
    }
}

/// The sum of `a[i] * b[i]` over the common length, for codes in `-127..=127`, with the
/// instructions of `simd`.
#[inline(always)]
pub fn code_dot<S: Simd>(simd: S, a: &[i8], b: &[i8]) -> i32 {
    let len = a.len().min(b.len());
    let (a, b) = (&a[..len], &b[..len]);
    #[cfg(target_arch = "x86_64")]
    {
        let token: &dyn Any = &simd;
        if let Some(v4) = token.downcast_ref::<pulp::x86::V4>() {
            return avx2::code_dot(**v4, a, b);
        }
        if let Some(v3) = token.downcast_ref::<pulp::x86::V3>() {
            return avx2::code_dot(*v3, a, b);
        }
    }
    plain(a, b)
}

/// The plain loop, for equal-length slices.
#[inline(always)]
fn plain(a: &[i8], b: &[i8]) -> i32 {
    let mut sum = 0i32;
    for (x, y) in a.iter().zip(b) {
        sum += i32::from(*x) * i32::from(*y);
    }
    sum
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::__m256i;

    use pulp::x86::V3;

    /// Codes one 256-bit register holds.
    const LANES: usize = 32;

    /// [`super::code_dot`] with AVX2, for equal-length slices: two running sums, so one
    /// block's additions do not wait for the last one's.
    #[inline(always)]
    pub(super) fn code_dot(simd: V3, a: &[i8], b: &[i8]) -> i32 {
        let (a_blocks, a_tail) = pulp::as_arrays::<LANES, _>(a);
        let (b_blocks, b_tail) = pulp::as_arrays::<LANES, _>(b);
        let ones = simd.avx._mm256_set1_epi16(1);
        let mut sums = [simd.avx._mm256_setzero_si256(); 2];
        for (i, (x, y)) in a_blocks.iter().zip(b_blocks).enumerate() {
            let x: __m256i = pulp::cast(*x);
            let y: __m256i = pulp::cast(*y);
            let pairs = simd.avx2._mm256_maddubs_epi16(
                simd.avx2._mm256_abs_epi8(x),
                simd.avx2._mm256_sign_epi8(y, x),
            );
            let lane = i % 2;
            sums[lane] = simd
                .avx2
                ._mm256_add_epi32(sums[lane], simd.avx2._mm256_madd_epi16(pairs, ones));
        }
        let total: [i32; 8] = pulp::cast(simd.avx2._mm256_add_epi32(sums[0], sums[1]));
        let mut sum = 0i32;
        for lane in total {
            sum += lane;
        }
        sum + super::plain(a_tail, b_tail)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Under the CPU's dispatch (AVX2 where the machine has it), the kernel equals the
        /// plain sum for any length, extreme codes included.
        #[test]
        fn the_kernel_equals_the_plain_sum(
            pairs in proptest::collection::vec(
                (prop_oneof![Just(127i8), Just(-127i8), -127i8..=127], -127i8..=127),
                0..700,
            ),
        ) {
            let a: Vec<i8> = pairs.iter().map(|p| p.0).collect();
            let b: Vec<i8> = pairs.iter().map(|p| p.1).collect();
            let expected: i32 = a.iter().zip(&b).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
            prop_assert_eq!(int8_dot(&a, &b), expected);
            prop_assert_eq!(code_dot(pulp::Scalar::new(), &a, &b), expected);
        }
    }

    /// Every pair of extremes in every lane: the products' pairs never saturate.
    #[test]
    fn extreme_codes_do_not_saturate() {
        for (x, y) in [(127i8, 127i8), (-127, -127), (127, -127), (-127, 127)] {
            let a = vec![x; 384];
            let b = vec![y; 384];
            let expected = 384 * i32::from(x) * i32::from(y);
            assert_eq!(int8_dot(&a, &b), expected);
        }
    }
}

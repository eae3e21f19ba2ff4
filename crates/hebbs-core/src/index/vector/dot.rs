//! [`dot`]: the dot product every vector comparison of the crate goes through (the cosine
//! similarity of two L2-normalised vectors), vectorised for the CPU it runs on.
//!
//! The wheel is built for baseline x86-64 (SSE2), so the compiler cannot use AVX2 or FMA by
//! itself; `pulp` detects them once and runs the kernel compiled for them, safely. Four
//! independent fused multiply-add accumulators keep the loop from waiting on the latency of one
//! running sum: about 2x the single-accumulator AVX2 loop of `anndists` on 384-d vectors.

use pulp::{Arch, Simd, WithSimd};

/// Independent accumulators in the kernel.
const ACCUMULATORS: usize = 4;

/// Dot product over the common length of `a` and `b`.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let len = a.len().min(b.len());
    Arch::new().dispatch(Dot(&a[..len], &b[..len]))
}

/// The kernel, for slices of equal length.
struct Dot<'a>(&'a [f32], &'a [f32]);

impl WithSimd for Dot<'_> {
    type Output = f32;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> f32 {
        dot_in(simd, self.0, self.1)
    }
}

/// The dot product of equal-length `a` and `b` with the instructions of `simd`: for kernels
/// that run many dot products inside one dispatch (the late-interaction max-sim).
#[inline(always)]
pub fn dot_in<S: Simd>(simd: S, a: &[f32], b: &[f32]) -> f32 {
    let (a, a_tail) = S::as_simd_f32s(a);
    let (b, b_tail) = S::as_simd_f32s(b);
    let (a_blocks, a_rest) = pulp::as_arrays::<ACCUMULATORS, _>(a);
    let (b_blocks, b_rest) = pulp::as_arrays::<ACCUMULATORS, _>(b);
    let mut sums = [simd.splat_f32s(0.0); ACCUMULATORS];
    for (x, y) in a_blocks.iter().zip(b_blocks) {
        for lane in 0..ACCUMULATORS {
            sums[lane] = simd.mul_add_e_f32s(x[lane], y[lane], sums[lane]);
        }
    }
    for (x, y) in a_rest.iter().zip(b_rest) {
        sums[0] = simd.mul_add_e_f32s(*x, *y, sums[0]);
    }
    // Plain loops, no closures: a closure is compiled as a function of its own without the
    // dispatch's target features, so its intrinsics would become calls instead of instructions.
    let mut total = sums[0];
    for sum in &sums[1..] {
        total = simd.add_f32s(total, *sum);
    }
    let mut tail = 0.0;
    for (x, y) in a_tail.iter().zip(b_tail) {
        tail += x * y;
    }
    simd.reduce_sum_f32s(total) + tail
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::dot;

    proptest! {
        #[test]
        fn dot_matches_the_naive_sum(
            pairs in proptest::collection::vec((-1.0f32..1.0, -1.0f32..1.0), 0..400),
            extra in proptest::collection::vec(-1.0f32..1.0, 0..5),
        ) {
            let a: Vec<f32> = pairs.iter().map(|p| p.0).collect();
            let mut b: Vec<f32> = pairs.iter().map(|p| p.1).collect();
            let naive: f64 = pairs.iter().map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
            b.extend(extra);
            let fast = f64::from(dot(&a, &b));
            prop_assert!((fast - naive).abs() <= 1e-5 * (1.0 + naive.abs()), "{fast} vs {naive}");
        }
    }
}

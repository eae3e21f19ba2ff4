//! Late interaction: IDF-weighted max-sim of a query's token vectors against each document's
//! int8 token vectors (the `token_vectors` column family).
//!
//! For query token `j` and document `d`, `best[j][d]` is the largest cosine between the query
//! token and any token of the document (`codes[row] * scale`, stored from unit vectors). The
//! score of `d` is the weighted mean `sum_j w_j best[j][d] / sum_j w_j` with the BM25 IDF
//! `w_j = ln(1 + (n - df_j + 0.5) / (df_j + 0.5))`, where `df_j` counts the `n` documents of the
//! call whose best match for token `j` reaches [`IDF_MATCH_THRESHOLD`]: a token most candidates
//! match well (a name every turn carries, "did") counts less than a rare one, with no corpus
//! statistics. This is the weighting that measured best on LoCoMo (docs/hybrid.md).
//!
//! **int8 x int8.** The query's tokens are normalised and quantised once per call the way the
//! stored ones are ([`CueCodes`]: per token the scale `max |v| / 127`, codes rounded), so a
//! cosine is an exact integer dot product of two int8 rows, accumulated in i32 (no overflow:
//! at most `MAX_VECTOR_DIMENSION * 128 * 128` < 2^31), times the two scales. The document's
//! codes are read in place from the stored value (no widening, no copy). On x86-64 with AVX2
//! (pulp's `V3`) and a dimension that is a multiple of 16, eight query tokens are matched
//! against each row in one pass (`vpmovsxbw` + `vpmaddwd`, module `avx2`) and their eight
//! sums reduced, scaled and kept in registers (a proptest checks it bit for bit against the
//! portable loop); elsewhere four at a
//! time in a portable loop inside one pulp dispatch per document, which the compiler
//! vectorises for the CPU it runs on. Against the float query the quantisation moves a cosine
//! by well under 0.01 (a proptest bounds it).

use pulp::{Arch, Simd, WithSimd};

use crate::memory::{TokenVectorsView, MAX_VECTOR_DIMENSION};

/// Cosine at which a document token counts as the query token's word, for the IDF.
pub const IDF_MATCH_THRESHOLD: f32 = 0.9;

/// Query tokens matched together against one document row: the row is loaded once per block
/// and each token has its own accumulator.
const TOKEN_BLOCK: usize = 4;

const _: () = assert!(MAX_VECTOR_DIMENSION * 128 * 128 < i32::MAX as usize);

/// A query's token vectors normalised and quantised to int8, row-major, one scale per token.
#[derive(Clone, Debug, PartialEq)]
pub struct CueCodes {
    /// Length of each token vector.
    pub dimension: usize,
    /// `tokens * dimension` codes.
    pub codes: Vec<i8>,
    /// Per token: `max |v| / 127` of its unit vector `v`.
    pub scales: Vec<f32>,
    /// `codes` widened to i16 once, for the AVX2 kernel's `vpmaddwd`.
    wide: Vec<i16>,
}

impl CueCodes {
    /// Normalises each of `tokens` (rows of one dimension, finite, not all zero) and quantises
    /// it: `code = round(v / scale)` with `scale = max |v| / 127`.
    pub fn quantize(tokens: &[Vec<f32>]) -> Self {
        let dimension = tokens.first().map_or(0, Vec::len);
        let mut codes = Vec::with_capacity(tokens.len() * dimension);
        let mut scales = Vec::with_capacity(tokens.len());
        for token in tokens {
            let norm = token.iter().map(|v| v * v).sum::<f32>().sqrt();
            let unit: Vec<f32> = token.iter().map(|v| v / norm).collect();
            let peak = unit.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let scale = if peak > 0.0 { peak / 127.0 } else { 1.0 };
            // Rounded into -127..=127 by construction; the clamp guards the last ulp.
            codes.extend(
                unit.iter()
                    .map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8),
            );
            scales.push(scale);
        }
        let wide = codes.iter().map(|code| i16::from(*code)).collect();
        Self {
            dimension,
            codes,
            scales,
            wide,
        }
    }

    /// Number of tokens.
    pub fn tokens(&self) -> usize {
        self.scales.len()
    }
}

/// `best[j]` for every query token `j`: its largest cosine with any token of `document`, of
/// the query's dimension, at most [`MAX_COSINE`].
pub fn best_matches(query: &CueCodes, document: &TokenVectorsView<'_>) -> Vec<f32> {
    let mut best = raw_best_matches(query, document);
    for value in &mut best {
        *value = value.min(MAX_COSINE);
    }
    best
}

/// A best match is capped at a cosine's largest value: int8 rounding can lift the product of
/// two quantised unit vectors a little above 1, and the re-rank stage bounds the scores it has
/// not read by this cap.
pub const MAX_COSINE: f32 = 1.0;

fn raw_best_matches(query: &CueCodes, document: &TokenVectorsView<'_>) -> Vec<f32> {
    #[cfg(target_arch = "x86_64")]
    if document.dimension.is_multiple_of(avx2::CHUNK) {
        if let Some(simd) = pulp::x86::V3::try_new() {
            return simd.vectorize(|| avx2::best_matches(simd, query, document));
        }
    }
    Arch::new().dispatch(BestMatches { query, document })
}

/// The x86-64 kernel for dimensions that are a multiple of 16 (the model's 384): each 16
/// document codes are sign-extended to i16 once (`vpmovsxbw`) and multiplied with the widened
/// query codes of eight tokens, pairs summed into i32 (`vpmaddwd`). The eight tokens' lane sums
/// are then reduced together (`vphaddd`), scaled and kept by `vmaxps`, all in registers; the
/// tokens past the last full block of eight are matched one at a time as in the portable loop.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use core::arch::x86_64::{__m256, __m256i};

    use pulp::x86::V3;
    use pulp::{i16x16, i32x8, i8x16, Simd};

    use super::CueCodes;
    use crate::memory::TokenVectorsView;

    /// Codes per step.
    pub(super) const CHUNK: usize = 16;
    /// Query tokens matched together against one row: eight accumulators, the widened row
    /// chunk and a token chunk fit the sixteen AVX2 registers.
    const BLOCK: usize = 8;

    #[inline(always)]
    pub(super) fn best_matches(
        simd: V3,
        query: &CueCodes,
        document: &TokenVectorsView<'_>,
    ) -> Vec<f32> {
        let dimension = document.dimension;
        let tokens: Vec<&[i16x16]> = query
            .wide
            .chunks_exact(dimension)
            .map(bytemuck::cast_slice)
            .collect();
        let blocks = tokens.len() / BLOCK;
        let split = blocks * BLOCK;
        // Per full block of eight tokens: their scales, and their best cosines so far.
        let block_scales: Vec<__m256> = query.scales[..split]
            .chunks_exact(BLOCK)
            .map(|scales| bytemuck::cast(<[f32; BLOCK]>::try_from(scales).expect("a block")))
            .collect();
        let mut block_best = vec![bytemuck::cast::<_, __m256>([f32::NEG_INFINITY; BLOCK]); blocks];
        let mut best = vec![f32::NEG_INFINITY; tokens.len()];
        for (row, scale) in document.codes.chunks_exact(dimension).zip(&document.scales) {
            let row: &[i8x16] = bytemuck::cast_slice(row);
            let row_scale = simd.avx._mm256_set1_ps(*scale);
            for (b, (slot, token_scales)) in block_best.iter_mut().zip(&block_scales).enumerate() {
                let sums =
                    block_sums::<BLOCK>(simd, row, std::array::from_fn(|k| tokens[b * BLOCK + k]));
                let dots = simd.avx._mm256_cvtepi32_ps(lane_sums(simd, sums));
                // Lane by lane `dot as f32 * (token_scale * scale)`, as the portable loop.
                let cosine = simd
                    .avx
                    ._mm256_mul_ps(dots, simd.avx._mm256_mul_ps(*token_scales, row_scale));
                // `vmaxps` keeps its first operand only when it is greater: `if cosine > best`.
                *slot = simd.avx._mm256_max_ps(cosine, *slot);
            }
            for ((slot, token), token_scale) in best[split..]
                .iter_mut()
                .zip(&tokens[split..])
                .zip(&query.scales[split..])
            {
                let [sum] = block_sums::<1>(simd, row, [token]);
                let lanes: [i32; 8] = bytemuck::cast::<i32x8, _>(sum);
                let dot: i32 = lanes.iter().sum();
                let cosine = dot as f32 * (token_scale * scale);
                if cosine > *slot {
                    *slot = cosine;
                }
            }
        }
        for (slots, block) in best.chunks_exact_mut(BLOCK).zip(&block_best) {
            slots.copy_from_slice(&bytemuck::cast::<__m256, [f32; BLOCK]>(*block));
        }
        best
    }

    /// The sum of the lanes of each of eight accumulators, as the eight lanes of one vector:
    /// two rounds of pairwise sums (`vphaddd`) leave each token's lower and upper half sums
    /// in the two 128-bit halves, which one exchange (`vperm2i128`) and one add combine. The
    /// i32 sums are exact, so the order of the additions does not matter.
    #[inline(always)]
    fn lane_sums(simd: V3, sums: [i32x8; BLOCK]) -> __m256i {
        // One cast of the whole array: `array::map` is a function of its own, built without
        // the dispatch's target features (tests/test_simd_inlined.py).
        let s: [__m256i; BLOCK] = bytemuck::cast(sums);
        let pairs = |a, b| simd.avx2._mm256_hadd_epi32(a, b);
        let first = pairs(pairs(s[0], s[1]), pairs(s[2], s[3]));
        let second = pairs(pairs(s[4], s[5]), pairs(s[6], s[7]));
        let lower = simd.avx2._mm256_permute2x128_si256::<0x20>(first, second);
        let upper = simd.avx2._mm256_permute2x128_si256::<0x31>(first, second);
        simd.avx2._mm256_add_epi32(lower, upper)
    }

    /// The i32 lane sums of `row` times each of `B` tokens (of the row's length), the row
    /// widened once per chunk and each token in its own accumulator.
    #[inline(always)]
    fn block_sums<const B: usize>(
        simd: V3,
        row: &[i8x16],
        mut tokens: [&[i16x16]; B],
    ) -> [i32x8; B] {
        let n = row.len();
        // Cut to the row's length in a plain loop: `array::map` is a function of its own that
        // the compiler may leave out of line (tests/test_simd_inlined.py).
        for token in &mut tokens {
            *token = &token[..n];
        }
        let mut sums = [simd.splat_i32s(0); B];
        for (i, chunk) in row.iter().enumerate() {
            let wide = simd.convert_i8x16_to_i16x16(*chunk);
            for k in 0..B {
                let products = simd.multiply_wrapping_add_adjacent_i16x16(wide, tokens[k][i]);
                sums[k] = simd.add_i32s(sums[k], products);
            }
        }
        sums
    }
}

/// The kernel: one dispatch per document, every query token matched with the instructions of
/// the CPU it runs on.
struct BestMatches<'a> {
    query: &'a CueCodes,
    document: &'a TokenVectorsView<'a>,
}

impl WithSimd for BestMatches<'_> {
    type Output = Vec<f32>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, _simd: S) -> Vec<f32> {
        let dimension = self.document.dimension;
        let query = self.query;
        let tokens: Vec<&[i8]> = query.codes.chunks_exact(dimension).collect();
        let mut best = vec![f32::NEG_INFINITY; tokens.len()];
        for (row, scale) in self
            .document
            .codes
            .chunks_exact(dimension)
            .zip(&self.document.scales)
        {
            let mut start = 0;
            while start < tokens.len() {
                let end = (start + TOKEN_BLOCK).min(tokens.len());
                let dots = if end - start == TOKEN_BLOCK {
                    block_dots(row, &tokens[start..end])
                } else {
                    let mut dots = [0i32; TOKEN_BLOCK];
                    for (slot, token) in dots.iter_mut().zip(&tokens[start..end]) {
                        *slot = dot_i8(row, token);
                    }
                    dots
                };
                for ((slot, dot), token_scale) in best[start..end]
                    .iter_mut()
                    .zip(dots)
                    .zip(&query.scales[start..end])
                {
                    let cosine = dot as f32 * (token_scale * scale);
                    if cosine > *slot {
                        *slot = cosine;
                    }
                }
                start = end;
            }
        }
        best
    }
}

/// The exact dot product of two int8 rows of one length, in i32.
#[inline(always)]
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum()
}

/// The dot products of `row` with each of [`TOKEN_BLOCK`] `tokens` (all of the row's length)
/// in one pass over the row.
#[inline(always)]
fn block_dots(row: &[i8], tokens: &[&[i8]]) -> [i32; TOKEN_BLOCK] {
    let n = row.len();
    let (t0, t1, t2, t3) = (
        &tokens[0][..n],
        &tokens[1][..n],
        &tokens[2][..n],
        &tokens[3][..n],
    );
    let mut sums = [0i32; TOKEN_BLOCK];
    for i in 0..n {
        let r = i32::from(row[i]);
        sums[0] += r * i32::from(t0[i]);
        sums[1] += r * i32::from(t1[i]);
        sums[2] += r * i32::from(t2[i]);
        sums[3] += r * i32::from(t3[i]);
    }
    sums
}

/// The IDF-weighted max-sim score of each document from its [`best_matches`] (all of one
/// query), in input order.
pub fn idf_scores(best: &[Vec<f32>]) -> Vec<f32> {
    let weights = idf_weights(best.iter());
    best.iter()
        .map(|matches| weighted_score(matches, &weights))
        .collect()
}

/// The BM25 IDF weight of each query token over the documents' `best` matches (see the module
/// docs); empty for no documents.
pub fn idf_weights<'a>(best: impl Iterator<Item = &'a Vec<f32>> + Clone) -> Vec<f32> {
    let n = best.clone().count() as f32;
    let Some(first) = best.clone().next() else {
        return Vec::new();
    };
    (0..first.len())
        .map(|j| {
            let df = best
                .clone()
                .filter(|matches| matches[j] >= IDF_MATCH_THRESHOLD)
                .count() as f32;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect()
}

/// A document's score: its best matches averaged with the query tokens' `weights`.
pub fn weighted_score(best: &[f32], weights: &[f32]) -> f32 {
    let total: f32 = weights.iter().sum();
    if total > 0.0 {
        best.iter().zip(weights).map(|(b, w)| b * w).sum::<f32>() / total
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::memory::TokenVectors;

    /// The plain formula in f64, token by token, for query tokens given as f64 rows (the unit
    /// float tokens, or the dequantised int8 ones).
    fn reference(query: &[Vec<f64>], documents: &[TokenVectors]) -> Vec<f64> {
        let best: Vec<Vec<f64>> = documents
            .iter()
            .map(|document| {
                query
                    .iter()
                    .map(|token| {
                        (0..document.tokens())
                            .map(|row| {
                                let codes = &document.codes
                                    [row * document.dimension..(row + 1) * document.dimension];
                                let dot: f64 = token
                                    .iter()
                                    .zip(codes)
                                    .map(|(q, c)| q * f64::from(*c))
                                    .sum();
                                dot * f64::from(document.scales[row])
                            })
                            .fold(f64::NEG_INFINITY, f64::max)
                            .min(f64::from(MAX_COSINE))
                    })
                    .collect()
            })
            .collect();
        let n = documents.len() as f64;
        let weights: Vec<f64> = (0..query.len())
            .map(|j| {
                let df = best
                    .iter()
                    .filter(|b| b[j] >= f64::from(IDF_MATCH_THRESHOLD))
                    .count() as f64;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        let total: f64 = weights.iter().sum();
        best.iter()
            .map(|b| b.iter().zip(&weights).map(|(x, w)| x * w).sum::<f64>() / total)
            .collect()
    }

    /// The unit rows of `query` in f64.
    fn unit_f64(query: &[Vec<f32>]) -> Vec<Vec<f64>> {
        query
            .iter()
            .map(|token| {
                let norm = token
                    .iter()
                    .map(|v| f64::from(*v).powi(2))
                    .sum::<f64>()
                    .sqrt();
                token.iter().map(|v| f64::from(*v) / norm).collect()
            })
            .collect()
    }

    /// The int8 query tokens as the f64 vectors they stand for (`code * scale`).
    fn dequantised(cue: &CueCodes) -> Vec<Vec<f64>> {
        cue.codes
            .chunks_exact(cue.dimension)
            .zip(&cue.scales)
            .map(|(codes, scale)| {
                codes
                    .iter()
                    .map(|c| f64::from(*c) * f64::from(*scale))
                    .collect()
            })
            .collect()
    }

    fn fast(cue: &CueCodes, documents: &[TokenVectors]) -> Vec<f32> {
        let best: Vec<Vec<f32>> = documents
            .iter()
            .map(|document| best_matches(cue, &document.view()))
            .collect();
        idf_scores(&best)
    }

    /// A cue of `query_tokens` tokens and `documents` documents of `document_tokens` tokens
    /// each, all of one width drawn from `widths`; documents are quantised unit vectors.
    fn cue_and_documents(
        widths: impl Strategy<Value = usize>,
        query_tokens: std::ops::Range<usize>,
        document_tokens: std::ops::Range<usize>,
        documents: std::ops::Range<usize>,
    ) -> impl Strategy<Value = (Vec<Vec<f32>>, Vec<TokenVectors>)> {
        widths.prop_flat_map(move |dimension| {
            let token = proptest::collection::vec(-1.0f32..1.0, dimension)
                .prop_filter("not all zero", |v| v.iter().any(|x| x.abs() > 1e-3));
            let query = proptest::collection::vec(token.clone(), query_tokens.clone());
            let document =
                proptest::collection::vec(token, document_tokens.clone()).prop_map(|rows| {
                    let cue = CueCodes::quantize(&rows);
                    TokenVectors {
                        dimension: cue.dimension,
                        codes: cue.codes,
                        scales: cue.scales,
                    }
                });
            (
                query,
                proptest::collection::vec(document, documents.clone()),
            )
        })
    }

    /// Any width, and widths such as the model's.
    fn case() -> impl Strategy<Value = (Vec<Vec<f32>>, Vec<TokenVectors>)> {
        cue_and_documents(
            prop_oneof![1usize..40, Just(64usize), Just(384usize)],
            1..11,
            1..8,
            1..12,
        )
    }

    proptest! {
        #[test]
        fn int8_scores_equal_the_plain_formula_of_the_quantised_query(
            (query, documents) in case()
        ) {
            let cue = CueCodes::quantize(&query);
            let fast = fast(&cue, &documents);
            let slow = reference(&dequantised(&cue), &documents);
            prop_assert_eq!(fast.len(), slow.len());
            for (f, s) in fast.iter().zip(&slow) {
                prop_assert!((f64::from(*f) - s).abs() <= 1e-5 * (1.0 + s.abs()), "{f} vs {s}");
            }
        }

        #[test]
        fn best_matches_stay_within_the_quantisation_error_of_the_float_query(
            (query, documents) in case()
        ) {
            let cue = CueCodes::quantize(&query);
            for document in &documents {
                let best = best_matches(&cue, &document.view());
                for (j, token) in unit_f64(&query).iter().enumerate() {
                    let exact = reference(std::slice::from_ref(token), std::slice::from_ref(document));
                    prop_assert!((f64::from(best[j]) - exact[0]).abs() <= 0.01, "{} vs {}", best[j], exact[0]);
                }
            }
        }
    }

    /// Widths the AVX2 kernel takes, and cues of up to three blocks of eight tokens and a
    /// remainder.
    #[cfg(target_arch = "x86_64")]
    fn avx2_case() -> impl Strategy<Value = (Vec<Vec<f32>>, Vec<TokenVectors>)> {
        cue_and_documents(
            prop_oneof![Just(16usize), Just(48usize), Just(384usize)],
            1..28,
            1..10,
            1..4,
        )
    }

    #[cfg(target_arch = "x86_64")]
    proptest! {
        /// The AVX2 kernel's best matches are the portable loop's, bit for bit: the i32 dot
        /// products are exact and each cosine is the same two float products.
        #[test]
        fn the_avx2_kernel_equals_the_portable_loop_bit_for_bit((query, documents) in avx2_case()) {
            let Some(simd) = pulp::x86::V3::try_new() else {
                return Ok(());
            };
            let cue = CueCodes::quantize(&query);
            for document in &documents {
                let view = document.view();
                let bits = |best: Vec<f32>| best.into_iter().map(f32::to_bits).collect::<Vec<_>>();
                let fast = simd.vectorize(|| avx2::best_matches(simd, &cue, &view));
                let portable = Arch::new().dispatch(BestMatches { query: &cue, document: &view });
                prop_assert_eq!(bits(fast), bits(portable));
            }
        }
    }

    #[test]
    fn quantize_keeps_unit_rows_to_int8_precision() {
        let cue = CueCodes::quantize(&[vec![3.0, -4.0], vec![0.0, 2.0]]);
        assert_eq!(cue.codes, vec![95, -127, 0, 127]);
        assert!((cue.scales[0] - 0.8 / 127.0).abs() < 1e-7);
        assert!((cue.scales[1] - 1.0 / 127.0).abs() < 1e-7);
    }

    #[test]
    fn a_token_every_document_matches_weighs_less_than_a_rare_one() {
        let cue = CueCodes::quantize(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
        let doc = |codes: Vec<i8>| TokenVectors {
            dimension: 2,
            codes,
            scales: vec![1.0 / 127.0; 1],
        };
        // Three documents match the common token exactly; one matches the rare one.
        let documents = [
            doc(vec![127, 0]),
            doc(vec![127, 0]),
            doc(vec![127, 0]),
            doc(vec![0, 127]),
        ];
        let scores = fast(&cue, &documents);
        assert!(scores[3] > scores[0], "{scores:?}");
    }
}

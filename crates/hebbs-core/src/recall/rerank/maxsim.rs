//! Late interaction: IDF-weighted max-sim of a query's token vectors against each document's
//! int8 token vectors (the `token_vectors` column family).
//!
//! For query token `j` and document `d`, `best[j][d]` is the largest cosine between the query
//! token (a unit vector) and any token of the document (`codes[row] * scale`, stored from unit
//! vectors). The score of `d` is the weighted mean `sum_j w_j best[j][d] / sum_j w_j` with the
//! BM25 IDF `w_j = ln(1 + (n - df_j + 0.5) / (df_j + 0.5))`, where `df_j` counts the `n`
//! documents of the call whose best match for token `j` reaches [`IDF_MATCH_THRESHOLD`]: a
//! token most candidates match well (a name every turn carries, "did") counts less than a rare
//! one, with no corpus statistics. This is the weighting that measured best on LoCoMo
//! (docs/hybrid.md).
//!
//! Each document's codes are widened to f32 once (a loop the compiler vectorises), then every
//! query token is matched through `dot_in`, the SIMD kernel of the vector index, all inside one
//! dispatch per document (the widening too is compiled for the CPU's instructions).

use pulp::{Arch, Simd, WithSimd};

use crate::index::vector::dot_in;
use crate::memory::TokenVectors;

/// Cosine at which a document token counts as the query token's word, for the IDF.
pub const IDF_MATCH_THRESHOLD: f32 = 0.9;

/// `best[j]` for every query token `j`: its largest cosine with any token of `document`.
/// `query` rows are unit-norm, of the document's dimension; `scratch` is reused between calls.
pub fn best_matches(
    query: &[Vec<f32>],
    document: &TokenVectors,
    scratch: &mut Vec<f32>,
) -> Vec<f32> {
    Arch::new().dispatch(BestMatches {
        query,
        document,
        scratch,
    })
}

/// The kernel: one dispatch per document, the codes widened and every query token matched
/// with the instructions of the CPU it runs on.
struct BestMatches<'a> {
    query: &'a [Vec<f32>],
    document: &'a TokenVectors,
    scratch: &'a mut Vec<f32>,
}

impl WithSimd for BestMatches<'_> {
    type Output = Vec<f32>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Vec<f32> {
        let dimension = self.document.dimension;
        self.scratch.clear();
        self.scratch
            .extend(self.document.codes.iter().map(|code| f32::from(*code)));
        let mut best = vec![f32::NEG_INFINITY; self.query.len()];
        let rows: Vec<&[f32]> = self.scratch.chunks_exact(dimension).collect();
        let blocked = dimension.is_multiple_of(S::F32_LANES);
        let mut start = 0;
        while start < self.query.len() {
            let end = (start + TOKEN_BLOCK).min(self.query.len());
            let tokens = &self.query[start..end];
            for (row, scale) in rows.iter().zip(&self.document.scales) {
                let mut dots = [0.0f32; TOKEN_BLOCK];
                if blocked && tokens.len() == TOKEN_BLOCK {
                    dots = block_dots(simd, row, tokens);
                } else {
                    for (slot, token) in dots.iter_mut().zip(tokens) {
                        *slot = dot_in(simd, token, row);
                    }
                }
                for (slot, dot) in best[start..end].iter_mut().zip(dots) {
                    let cosine = dot * scale;
                    if cosine > *slot {
                        *slot = cosine;
                    }
                }
            }
            start = end;
        }
        best
    }
}

/// Query tokens matched together against one document row: the row is loaded once per block
/// and each token has its own accumulator, so the loop is bound by the multiply-adds rather
/// than by loads (1.2x a dot product per token on 384-d, measured single-threaded on a busy
/// core: 3.3-4.0 ms against 4.0-5.6 ms for 750 memories of 28 tokens and 10 cue tokens).
const TOKEN_BLOCK: usize = 4;

/// The dot products of `row` with each of [`TOKEN_BLOCK`] `tokens`, all of the row's length,
/// a multiple of the SIMD width.
#[inline(always)]
fn block_dots<S: Simd>(simd: S, row: &[f32], tokens: &[Vec<f32>]) -> [f32; TOKEN_BLOCK] {
    let (row, _) = S::as_simd_f32s(row);
    let lanes: [&[S::f32s]; TOKEN_BLOCK] = std::array::from_fn(|k| S::as_simd_f32s(&tokens[k]).0);
    let mut sums = [simd.splat_f32s(0.0); TOKEN_BLOCK];
    for (i, chunk) in row.iter().enumerate() {
        for k in 0..TOKEN_BLOCK {
            sums[k] = simd.mul_add_e_f32s(*chunk, lanes[k][i], sums[k]);
        }
    }
    sums.map(|sum| simd.reduce_sum_f32s(sum))
}

/// The IDF-weighted max-sim score of each document from its [`best_matches`] (all of one
/// query), in input order.
pub fn idf_scores(best: &[Vec<f32>]) -> Vec<f32> {
    let Some(first) = best.first() else {
        return Vec::new();
    };
    let n = best.len() as f32;
    let weights: Vec<f32> = (0..first.len())
        .map(|j| {
            let df = best
                .iter()
                .filter(|matches| matches[j] >= IDF_MATCH_THRESHOLD)
                .count() as f32;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let total: f32 = weights.iter().sum();
    best.iter()
        .map(|matches| {
            let sum: f32 = matches.iter().zip(&weights).map(|(b, w)| b * w).sum();
            if total > 0.0 {
                sum / total
            } else {
                0.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The plain formula in f64, token by token.
    fn reference(query: &[Vec<f32>], documents: &[TokenVectors]) -> Vec<f64> {
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
                                    .map(|(q, c)| f64::from(*q) * f64::from(*c))
                                    .sum();
                                dot * f64::from(document.scales[row])
                            })
                            .fold(f64::NEG_INFINITY, f64::max)
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

    fn unit(values: Vec<f32>) -> Vec<f32> {
        let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-6);
        values.into_iter().map(|v| v / norm).collect()
    }

    fn case() -> impl Strategy<Value = (Vec<Vec<f32>>, Vec<TokenVectors>)> {
        // Any width, and widths of whole SIMD blocks (the blocked kernel) such as the model's.
        prop_oneof![1usize..40, Just(64usize), Just(384usize)].prop_flat_map(|dimension| {
            let query = proptest::collection::vec(
                proptest::collection::vec(-1.0f32..1.0, dimension).prop_map(unit),
                1..11,
            );
            let document = (1usize..8).prop_flat_map(move |tokens| {
                (
                    proptest::collection::vec(any::<i8>(), tokens * dimension),
                    proptest::collection::vec(1e-4f32..0.05, tokens),
                )
                    .prop_map(move |(codes, scales)| TokenVectors {
                        dimension,
                        codes,
                        scales,
                    })
            });
            (query, proptest::collection::vec(document, 1..12))
        })
    }

    proptest! {
        #[test]
        fn scores_match_the_plain_formula((query, documents) in case()) {
            let mut scratch = Vec::new();
            let best: Vec<Vec<f32>> = documents
                .iter()
                .map(|document| best_matches(&query, document, &mut scratch))
                .collect();
            let fast = idf_scores(&best);
            let slow = reference(&query, &documents);
            prop_assert_eq!(fast.len(), slow.len());
            for (f, s) in fast.iter().zip(&slow) {
                prop_assert!((f64::from(*f) - s).abs() <= 1e-4 * (1.0 + s.abs()), "{f} vs {s}");
            }
        }
    }

    #[test]
    fn a_token_every_document_matches_weighs_less_than_a_rare_one() {
        let common = vec![1.0, 0.0];
        let rare = vec![0.0, 1.0];
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
        let mut scratch = Vec::new();
        let best: Vec<Vec<f32>> = documents
            .iter()
            .map(|d| best_matches(&[common.clone(), rare.clone()], d, &mut scratch))
            .collect();
        let scores = idf_scores(&best);
        assert!(scores[3] > scores[0], "{scores:?}");
    }
}

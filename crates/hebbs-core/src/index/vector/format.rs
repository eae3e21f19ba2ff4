//! [`VectorFormat`]: how the vector index holds its copy of each vector in memory, and the
//! [`Codec`] of each format: the encoding of a normalised `f32` vector into the row the graph
//! stores, and the cosine distance between two rows.
//!
//! - **`f32`** (the default): the vector as it is; distances are exact.
//! - **`int8`**: scalar quantisation with one scale per vector (absmax): each component becomes
//!   `round(x / s)` in `-127..=127` with `s = max |x| / 127`, and the row is the `dimension`
//!   codes followed by `s` (4 bytes): 388 bytes for a 384-d vector instead of 1,536. The dot
//!   product of two rows is `s_a * s_b * sum(a_i * b_i)`, an integer sum of `i8` products.
//!
//! Why one scale per vector, not one per dimension trained on the store's vectors (Qdrant,
//! FAISS SQ8): the vectors are L2-normalised, so their components already share one range, and a
//! per-vector scale uses the whole `i8` range of every vector, whatever the model. It needs no
//! training set, so the first vector of an empty store is encoded as well as the ten millionth;
//! the codes never go stale as the store's content drifts (no re-training on a rebuild); and the
//! same integer dot product serves the graph's build (row against row) and its search (query
//! encoded the same way), where a per-dimension offset would make the two differ. The
//! quantisation error of one component is at most `s / 2`, so a dot product is off by at most
//! `(|a|_1 * s_b + |b|_1 * s_a) / 2 + dimension * s_a * s_b / 4` (property-tested below); the
//! index re-scores its final candidates with the exact `f32` vectors anyway (see
//! `recall::rescore`), so results and their relevance stay exact cosines.
//!
//! The integer dot product is `code_dot.rs`'s kernel, run with the instructions of the graph's
//! `pulp` dispatch (AVX2's byte multiply-adds where the CPU has them).

use std::borrow::Cow;

use bytemuck::Pod;
use pulp::Simd;

use super::code_dot::code_dot;
use super::dot::{dot, dot_in};
use crate::error::{HebbsError, Result};

/// Bytes after the codes of an int8 row: the vector's scale, an `f32`.
const SCALE_BYTES: usize = 4;
/// The largest code magnitude: `i8` without -128, so the range is symmetric.
const MAX_CODE: f32 = 127.0;
/// 1.5 * 2^23: see `Int8::encode_into`.
const WHOLE_TO_BITS: f32 = 12_582_912.0;
/// Running maxima an encoding keeps side by side (a 256-bit register of `f32`).
const MAX_LANES: usize = 8;
/// Standard deviations of an int8 dot product's error (see [`Int8::error_sigma`]) by which a
/// candidate's approximate distance must exceed the distance the re-score must beat before it
/// is left unread. At 6 a skipped candidate belongs in the answer with odds below one in 10^8
/// under the error's normal approximation (its tails are lighter still: a sum of bounded
/// terms); docs/scale.md has the reads it saves.
pub const RESCORE_SKIP_SIGMAS: f32 = 6.0;

/// How the index holds the vectors in memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum VectorFormat {
    /// 32-bit floats, exact distances.
    #[default]
    F32,
    /// 8-bit codes with a per-vector scale; the final candidates are re-scored with the exact
    /// vectors from the store.
    Int8,
}

impl VectorFormat {
    /// The format's name, as options and the checkpoint spell it.
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::Int8 => "int8",
        }
    }

    /// Parses a format's name; an invalid-argument error naming `field` otherwise.
    pub fn parse(name: &str, field: &str) -> Result<Self> {
        match name {
            "f32" => Ok(Self::F32),
            "int8" => Ok(Self::Int8),
            other => Err(HebbsError::invalid(
                field,
                format!("{other:?} is not a vector format (\"f32\" or \"int8\")"),
            )),
        }
    }

    /// The format's byte in the checkpoint.
    pub(super) fn code(self) -> u8 {
        match self {
            Self::F32 => 0,
            Self::Int8 => 1,
        }
    }

    /// The format of a checkpoint byte.
    pub(super) fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(Self::F32),
            1 => Some(Self::Int8),
            _ => None,
        }
    }

    /// Bytes of one `dimension`-d vector in memory.
    pub fn row_bytes(self, dimension: usize) -> usize {
        match self {
            Self::F32 => dimension * 4,
            Self::Int8 => dimension + SCALE_BYTES,
        }
    }
}

/// One format's rows and distances.
pub trait Codec: Send + Sync + 'static {
    /// The element of a row.
    type Elem: Pod + Default + Send + Sync;
    /// The format.
    const FORMAT: VectorFormat;

    /// Elements in the row of a `dimension`-d vector.
    fn stride(dimension: usize) -> usize;

    /// The row of normalised `vector`.
    fn encode(vector: &[f32]) -> Cow<'_, [Self::Elem]>;

    /// Cosine distance of two rows, with the instructions of `simd`.
    fn distance_in<S: Simd>(simd: S, a: &[Self::Elem], b: &[Self::Elem]) -> f32;

    /// Cosine distance of two rows, outside a dispatch.
    fn distance(a: &[Self::Elem], b: &[Self::Elem]) -> f32;
}

/// The `f32` format.
pub struct F32;

impl Codec for F32 {
    type Elem = f32;
    const FORMAT: VectorFormat = VectorFormat::F32;

    fn stride(dimension: usize) -> usize {
        dimension
    }

    fn encode(vector: &[f32]) -> Cow<'_, [f32]> {
        Cow::Borrowed(vector)
    }

    #[inline(always)]
    fn distance_in<S: Simd>(simd: S, a: &[f32], b: &[f32]) -> f32 {
        let len = a.len().min(b.len());
        1.0 - dot_in(simd, &a[..len], &b[..len])
    }

    fn distance(a: &[f32], b: &[f32]) -> f32 {
        1.0 - dot(a, b)
    }
}

/// The `int8` format: the codes, then the scale's 4 bytes.
pub struct Int8;

impl Int8 {
    /// The codes and the scale of a row.
    #[inline(always)]
    pub(super) fn split(row: &[i8]) -> (&[i8], f32) {
        let (codes, scale) = row.split_at(row.len().saturating_sub(SCALE_BYTES));
        let bytes: &[u8] = bytemuck::cast_slice(scale);
        let scale = match bytes {
            [a, b, c, d] => f32::from_le_bytes([*a, *b, *c, *d]),
            _ => 0.0,
        };
        (codes, scale)
    }

    /// The scale of `vector`'s row (see [`Int8::encode_into`]), without encoding it.
    pub(super) fn scale_of(vector: &[f32]) -> f32 {
        Self::scale_for(vector.iter().fold(0f32, |largest, x| largest.max(x.abs())))
    }

    /// The scale of a row whose largest component magnitude is `largest` (0 for a zero or
    /// non-finite vector, whose codes are then all 0).
    #[inline(always)]
    fn scale_for(largest: f32) -> f32 {
        if largest.is_finite() && largest > 0.0 {
            largest / MAX_CODE
        } else {
            0.0
        }
    }

    /// The standard deviation of the error of the dot product of two unit vectors' rows of
    /// scales `a` and `b`: each code's rounding error is uniform within half its scale
    /// (variance `s^2 / 12`), and the errors of one row are weighted by the other vector's
    /// components, whose squares sum to 1, so the variance is `(a^2 + b^2) / 12` (the product
    /// of two errors is smaller by a scale again).
    pub(super) fn error_sigma(a: f32, b: f32) -> f32 {
        ((a * a + b * b) / 12.0).sqrt()
    }

    /// The dot product of two rows as the integer sum of code products (`code_dot.rs`; it fits
    /// an i32 for any dimension below 133,000) times both scales.
    #[inline(always)]
    fn dot_rows<S: Simd>(simd: S, a: &[i8], b: &[i8]) -> f32 {
        let (a, a_scale) = Self::split(a);
        let (b, b_scale) = Self::split(b);
        code_dot(simd, a, b) as f32 * a_scale * b_scale
    }

    /// Appends the row of normalised `vector` to `row` (inlined, so inside a SIMD dispatch
    /// its loops are vectorised for the dispatch's instruction set).
    #[inline(always)]
    pub(super) fn encode_into(vector: &[f32], row: &mut Vec<i8>) {
        // The largest magnitude lane by lane, then across: one running maximum would stay
        // scalar (the order of a float reduction is kept).
        let mut lanes = [0f32; MAX_LANES];
        let chunks = vector.chunks_exact(MAX_LANES);
        let mut largest = 0f32;
        for x in chunks.remainder() {
            largest = largest.max(x.abs());
        }
        for chunk in chunks {
            for (lane, x) in lanes.iter_mut().zip(chunk) {
                *lane = lane.max(x.abs());
            }
        }
        for lane in lanes {
            largest = largest.max(lane);
        }
        let scale = Self::scale_for(largest);
        // Written into place, not pushed: a push's capacity check would keep the loop scalar.
        let start = row.len();
        row.resize(start + vector.len(), 0);
        for (code, x) in row[start..].iter_mut().zip(vector) {
            let value = if scale > 0.0 {
                (x / scale).round().clamp(-MAX_CODE, MAX_CODE)
            } else {
                0.0
            };
            // Not `as`: a float-to-integer cast saturates lane by lane, which keeps the loop
            // scalar. A whole number below 2^22 in size plus 1.5 * 2^23 has the number's two's
            // complement in its low bits, read with a bit cast.
            *code = (value + WHOLE_TO_BITS).to_bits() as u8 as i8;
        }
        row.extend(bytemuck::cast_slice::<u8, i8>(&scale.to_le_bytes()));
    }

    /// The value a code of a row stands for.
    #[cfg(test)]
    fn decode(row: &[i8]) -> Vec<f32> {
        let (codes, scale) = Self::split(row);
        codes.iter().map(|&code| f32::from(code) * scale).collect()
    }
}

impl Codec for Int8 {
    type Elem = i8;
    const FORMAT: VectorFormat = VectorFormat::Int8;

    fn stride(dimension: usize) -> usize {
        dimension + SCALE_BYTES
    }

    fn encode(vector: &[f32]) -> Cow<'_, [i8]> {
        let mut row = Vec::with_capacity(vector.len() + SCALE_BYTES);
        Self::encode_into(vector, &mut row);
        Cow::Owned(row)
    }

    #[inline(always)]
    fn distance_in<S: Simd>(simd: S, a: &[i8], b: &[i8]) -> f32 {
        1.0 - Self::dot_rows(simd, a, b)
    }

    fn distance(a: &[i8], b: &[i8]) -> f32 {
        1.0 - Self::dot_rows(pulp::Scalar::new(), a, b)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn unit(values: Vec<f32>) -> Option<Vec<f32>> {
        let mut vector = values;
        super::super::normalize(&mut vector).then_some(vector)
    }

    proptest! {
        /// Every component decodes to within half a step of the original, its code is its
        /// rounded multiple of the scale, and the row is `dimension` codes plus the scale.
        #[test]
        fn a_component_is_off_by_at_most_half_a_step(
            values in proptest::collection::vec(-1.0f32..1.0, 1..500),
        ) {
            let Some(vector) = unit(values) else { return Ok(()); };
            let row = Int8::encode(&vector);
            prop_assert_eq!(row.len(), Int8::stride(vector.len()));
            let (codes, scale) = Int8::split(&row);
            for (x, back) in vector.iter().zip(Int8::decode(&row)) {
                prop_assert!((x - back).abs() <= scale * 0.5 + 1e-7, "{x} vs {back}");
            }
            // The bit-cast conversion gives what a plain cast of the rounded value gives.
            for (x, code) in vector.iter().zip(codes) {
                prop_assert_eq!(*code, (x / scale).round() as i8);
            }
        }

        /// The integer dot product equals the dot product of the decoded vectors, and stays
        /// within the bound of the module docs of the exact one.
        #[test]
        fn the_int8_dot_product_is_within_its_bound(
            pairs in proptest::collection::vec((-1.0f32..1.0, -1.0f32..1.0), 1..500),
        ) {
            let (Some(a), Some(b)) = (
                unit(pairs.iter().map(|p| p.0).collect()),
                unit(pairs.iter().map(|p| p.1).collect()),
            ) else {
                return Ok(());
            };
            let (ra, rb) = (Int8::encode(&a), Int8::encode(&b));
            let (_, sa) = Int8::split(&ra);
            let (_, sb) = Int8::split(&rb);
            let approx = 1.0 - Int8::distance(&ra, &rb);
            let decoded: f32 = Int8::decode(&ra).iter().zip(Int8::decode(&rb)).map(|(x, y)| x * y).sum();
            prop_assert!((approx - decoded).abs() <= 1e-4, "{approx} vs {decoded}");
            let exact: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            let l1 = |v: &[f32]| v.iter().map(|x| x.abs()).sum::<f32>();
            let bound = (l1(&a) * sb + l1(&b) * sa) / 2.0 + a.len() as f32 * sa * sb / 4.0;
            prop_assert!((approx - exact).abs() <= bound + 1e-5, "{approx} vs {exact}, bound {bound}");
        }
    }

    #[test]
    fn a_zero_vector_encodes_to_zero_codes() {
        let row = Int8::encode(&[0.0; 8]);
        assert_eq!(Int8::distance(&row, &row), 1.0);
    }

    #[test]
    fn names_parse_and_a_bad_one_names_the_field() {
        assert_eq!(
            VectorFormat::parse("int8", "f").unwrap(),
            VectorFormat::Int8
        );
        assert_eq!(VectorFormat::parse("f32", "f").unwrap().name(), "f32");
        let error = VectorFormat::parse("int4", "vector_format").unwrap_err();
        assert!(error.to_string().contains("vector_format"), "{error}");
        for format in [VectorFormat::F32, VectorFormat::Int8] {
            assert_eq!(VectorFormat::from_code(format.code()), Some(format));
        }
    }
}

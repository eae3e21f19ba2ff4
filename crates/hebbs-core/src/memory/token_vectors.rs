//! The per-token vectors of a memory's content (the `token_vectors` column family), which a
//! late-interaction re-ranker matches a query against: int8 codes, one row of `dimension` codes
//! per token, and one float32 scale per token (a token's vector is `codes[row] * scale`). The
//! caller quantises; the engine checks the shape and stores the bytes.
//!
//! Layout, little-endian: `format u8 | dimension u16 | tokens u32 | codes [tokens * dimension]
//! i8 | scales [tokens] f32`; the key is the memory id.

use super::MAX_VECTOR_DIMENSION;
use crate::codec::Reader;
use crate::error::{HebbsError, Result};

/// Version byte of the stored layout.
const TOKEN_VECTORS_FORMAT: u8 = 1;
/// Bytes before the codes: format, dimension and token count.
const HEADER_BYTES: usize = 1 + 2 + 4;
/// Most tokens stored for one memory (a text longer than any encoder's window).
pub const MAX_TOKENS_PER_MEMORY: usize = 8192;

/// Quantised per-token vectors of one memory.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenVectors {
    /// Length of each token vector.
    pub dimension: usize,
    /// `tokens * dimension` codes, row-major (one row per token).
    pub codes: Vec<i8>,
    /// One positive, finite scale per token.
    pub scales: Vec<f32>,
}

impl TokenVectors {
    /// Number of tokens.
    pub fn tokens(&self) -> usize {
        self.scales.len()
    }

    /// Checks the shape; errors name `{field}.dimension`, `{field}.codes` or
    /// `{field}.scales[j]`.
    pub fn check(&self, field: &str) -> Result<()> {
        check_shape(field, self.dimension, self.codes.len(), &self.scales)
    }

    /// The vectors borrowed, as the max-sim kernel reads them.
    pub fn view(&self) -> TokenVectorsView<'_> {
        TokenVectorsView {
            dimension: self.dimension,
            codes: &self.codes,
            scales: self.scales.clone(),
        }
    }

    /// Serialises checked vectors.
    pub fn encode(&self) -> Vec<u8> {
        let dimension = u16::try_from(self.dimension).expect("checked: dimension fits u16");
        let tokens = u32::try_from(self.tokens()).expect("checked: token count fits u32");
        let mut out = Vec::with_capacity(HEADER_BYTES + self.codes.len() + 4 * self.tokens());
        out.push(TOKEN_VECTORS_FORMAT);
        out.extend_from_slice(&dimension.to_le_bytes());
        out.extend_from_slice(&tokens.to_le_bytes());
        out.extend(self.codes.iter().map(|code| code.to_le_bytes()[0]));
        for scale in &self.scales {
            out.extend_from_slice(&scale.to_le_bytes());
        }
        out
    }

    /// Parses a stored value; a value that [`TokenVectors::check`] would refuse is corrupt.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        let view = TokenVectorsView::parse(bytes)?;
        Ok(Self {
            dimension: view.dimension,
            codes: view.codes.to_vec(),
            scales: view.scales,
        })
    }
}

/// A stored value's token vectors read in place: the codes borrowed from the value (no copy of
/// the ~11 KB a memory holds), the scales decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenVectorsView<'a> {
    /// Length of each token vector.
    pub dimension: usize,
    /// `tokens * dimension` codes, row-major.
    pub codes: &'a [i8],
    /// One positive, finite scale per token.
    pub scales: Vec<f32>,
}

impl<'a> TokenVectorsView<'a> {
    /// Parses a stored value in place; a value that [`TokenVectors::check`] would refuse is
    /// corrupt.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let mut reader = Reader::new(bytes, "token vectors");
        let format = reader.u8()?;
        if format != TOKEN_VECTORS_FORMAT {
            return Err(HebbsError::corrupt(
                "token vectors",
                format!("format {format}, this build reads {TOKEN_VECTORS_FORMAT}"),
            ));
        }
        let dimension = usize::from(u16::from_le_bytes(reader.array()?));
        let tokens = reader.u32()? as usize;
        let codes: &[i8] = bytemuck::cast_slice(reader.take(tokens * dimension)?);
        let scales: Vec<f32> = reader
            .take(tokens * 4)?
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes(chunk.try_into().expect("chunks of 4")))
            .collect();
        if !reader.is_done() {
            return Err(HebbsError::corrupt("token vectors", "trailing bytes"));
        }
        // A damaged blob must not reach max-sim: a NaN scale would poison every score.
        check_shape("token_vectors", dimension, codes.len(), &scales)
            .map_err(|error| HebbsError::corrupt("token vectors", error.to_string()))?;
        Ok(Self {
            dimension,
            codes,
            scales,
        })
    }

    /// Number of tokens.
    pub fn tokens(&self) -> usize {
        self.scales.len()
    }
}

/// The shape [`TokenVectors::check`] requires, for owned and borrowed vectors alike.
fn check_shape(field: &str, dimension: usize, codes: usize, scales: &[f32]) -> Result<()> {
    if dimension == 0 || dimension > MAX_VECTOR_DIMENSION {
        return Err(HebbsError::invalid(
            format!("{field}.dimension"),
            format!("must be in 1..={MAX_VECTOR_DIMENSION}, got {dimension}"),
        ));
    }
    let tokens = scales.len();
    if tokens == 0 || tokens > MAX_TOKENS_PER_MEMORY {
        return Err(HebbsError::invalid(
            format!("{field}.scales"),
            format!("must hold 1..={MAX_TOKENS_PER_MEMORY} tokens, got {tokens}"),
        ));
    }
    if codes != tokens * dimension {
        return Err(HebbsError::invalid(
            format!("{field}.codes"),
            format!("must hold tokens * dimension = {tokens} * {dimension} codes, got {codes}"),
        ));
    }
    if let Some(j) = scales
        .iter()
        .position(|scale| !scale.is_finite() || *scale <= 0.0)
    {
        return Err(HebbsError::invalid(
            format!("{field}.scales[{j}]"),
            format!("must be finite and positive, got {}", scales[j]),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> TokenVectors {
        TokenVectors {
            dimension: 3,
            codes: vec![-127, 0, 127, 5, -6, 7],
            scales: vec![0.25, 1.5e-3],
        }
    }

    fn field_of(error: HebbsError) -> String {
        match error {
            HebbsError::InvalidInput { field, .. } => field,
            other => panic!("expected InvalidInput, got {other:?}"),
        }
    }

    #[test]
    fn round_trips_bit_for_bit() {
        let vectors = sample();
        vectors.check("v").unwrap();
        let bytes = vectors.encode();
        assert_eq!(bytes.len(), HEADER_BYTES + 6 + 8);
        assert_eq!(TokenVectors::decode(&bytes).unwrap(), vectors);
    }

    #[test]
    fn decode_rejects_damaged_bytes() {
        let bytes = sample().encode();
        assert!(TokenVectors::decode(&bytes[..bytes.len() - 1]).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(TokenVectors::decode(&longer).is_err());
        let mut other_format = bytes;
        other_format[0] = 2;
        assert!(matches!(
            TokenVectors::decode(&other_format),
            Err(HebbsError::Corruption { .. })
        ));
    }

    #[test]
    fn check_names_the_bad_field() {
        let bad_dimension = TokenVectors {
            dimension: 0,
            ..sample()
        };
        assert_eq!(
            field_of(bad_dimension.check("v").unwrap_err()),
            "v.dimension"
        );
        let short_codes = TokenVectors {
            codes: vec![1; 5],
            ..sample()
        };
        assert_eq!(field_of(short_codes.check("v").unwrap_err()), "v.codes");
        let no_tokens = TokenVectors {
            codes: Vec::new(),
            scales: Vec::new(),
            ..sample()
        };
        assert_eq!(field_of(no_tokens.check("v").unwrap_err()), "v.scales");
        for scale in [f32::NAN, f32::INFINITY, 0.0, -1.0] {
            let bad_scale = TokenVectors {
                scales: vec![0.25, scale],
                ..sample()
            };
            assert_eq!(field_of(bad_scale.check("v").unwrap_err()), "v.scales[1]");
        }
    }
}

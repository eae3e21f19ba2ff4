//! Conversions of token vectors: `(id, codes, scales)` tuples of `put_token_vectors` and the
//! `(codes, scales)` pairs given with `remember` / `revise`, int8 codes `[tokens, dimension]`
//! and float32 scales `[tokens]` in, the same arrays out of `get_token_vectors` (built on the
//! engine's vectors without a copy), and a cue's float32 token vectors. Shapes are checked by
//! the core.

use hebbs_core::{MemoryId, TokenVectors};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

use crate::errors::invalid_type;
use crate::types::extract_id;

/// Token vectors as Python sees them: codes `[tokens, dimension]` and scales `[tokens]`.
pub type TokenArrays<'py> = (Bound<'py, PyArray2<i8>>, Bound<'py, PyArray1<f32>>);

/// Parses an iterable of `(id, codes, scales)`; errors name `items[i]`, `items[i].id`,
/// `items[i].codes` or `items[i].scales`.
pub fn extract_items(object: &Bound<'_, PyAny>) -> PyResult<Vec<(MemoryId, TokenVectors)>> {
    object
        .try_iter()
        .map_err(|_| invalid_type("items", "expected an iterable of (id, codes, scales)"))?
        .enumerate()
        .map(|(i, item)| {
            let item = item?;
            let (id, codes, scales): (Bound<'_, PyAny>, Bound<'_, PyAny>, Bound<'_, PyAny>) =
                item.extract().map_err(|_| {
                    invalid_type(
                        &format!("items[{i}]"),
                        "expected an (id, codes, scales) tuple",
                    )
                })?;
            let id = extract_id(&id, &format!("items[{i}].id"))?;
            Ok((id, extract_arrays(&codes, &scales, &format!("items[{i}]"))?))
        })
        .collect()
}

/// Parses a `(codes, scales)` pair (a memory's token vectors given with its content); errors
/// name `field`, `field.codes` or `field.scales`.
pub fn extract_pair(object: &Bound<'_, PyAny>, field: &str) -> PyResult<TokenVectors> {
    let (codes, scales): (Bound<'_, PyAny>, Bound<'_, PyAny>) = object
        .extract()
        .map_err(|_| invalid_type(field, "expected a (codes, scales) tuple"))?;
    extract_arrays(&codes, &scales, field)
}

fn extract_arrays(
    codes: &Bound<'_, PyAny>,
    scales: &Bound<'_, PyAny>,
    field: &str,
) -> PyResult<TokenVectors> {
    let codes: PyReadonlyArray2<'_, i8> = codes.extract().map_err(|_| {
        invalid_type(
            &format!("{field}.codes"),
            "expected a 2-D int8 numpy array [tokens, dimension]",
        )
    })?;
    let scales: PyReadonlyArray1<'_, f32> = scales.extract().map_err(|_| {
        invalid_type(
            &format!("{field}.scales"),
            "expected a 1-D float32 numpy array [tokens]",
        )
    })?;
    let matrix = codes.as_array();
    let dimension = matrix.ncols();
    let codes = match codes.as_slice() {
        Ok(slice) => slice.to_vec(),
        Err(_) => matrix.iter().copied().collect(),
    };
    let scales = match scales.as_slice() {
        Ok(slice) => slice.to_vec(),
        Err(_) => scales.as_array().iter().copied().collect(),
    };
    Ok(TokenVectors {
        dimension,
        codes,
        scales,
    })
}

/// The rows of a float32 `[tokens, dimension]` array (a cue's token vectors).
pub fn matrix_rows(array: &PyReadonlyArray2<'_, f32>) -> Vec<Vec<f32>> {
    array
        .as_array()
        .rows()
        .into_iter()
        .map(|row| row.iter().copied().collect())
        .collect()
}

/// Moves stored vectors into numpy arrays (no copy of the codes or scales).
pub fn to_arrays(py: Python<'_>, vectors: TokenVectors) -> TokenArrays<'_> {
    let tokens = vectors.tokens();
    let codes = Array2::from_shape_vec((tokens, vectors.dimension), vectors.codes)
        .expect("the core decodes tokens * dimension codes");
    (codes.into_pyarray(py), vectors.scales.into_pyarray(py))
}

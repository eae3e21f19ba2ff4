//! The JSON shape of the result types, shared by their `to_dict` / `from_dict` methods: the wire
//! contract of the REST server and the client.
//!
//! An object holds every public property of the type by its name; ids are 32 lower-case hex
//! digits, `EdgeType` / `MemoryKind` their `.value`, an embedding a list of floats or null, and
//! nested types the same shape recursively, derived properties too (`id_hex`; a recall result's
//! `scores`, the composite's four signals, read back from it). It is the one encoder of each
//! result type: the REST server, MCP, the CLI's `--json` and export write it, the client reads
//! it. Every encoder destructures its type, so a field added to one is a compile error there
//! until it is written. Reading is tolerant: unknown keys are ignored (a newer server may add fields) and a
//! missing optional property reads as None; every other problem is an `InvalidInputError` naming
//! the dotted path of the value (`results[0].memory.id`).

use hebbs_core::recall::Strategy;
use hebbs_core::{EdgeType, MemoryId, MemoryKind, TokenVectors};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use serde_json::{Map, Value};

use crate::errors::{invalid, invalid_type};
use crate::json::dict_to_map;
use crate::token_vectors::extract_pair;

/// Reads the properties of one JSON object; `path` is where it sits in the document.
pub struct Reader<'py> {
    dict: Bound<'py, PyDict>,
    path: String,
}

impl<'py> Reader<'py> {
    /// The reader of `data`, which must be a dict; `path` names it in errors (`data` at the top).
    pub fn new(data: &Bound<'py, PyAny>, path: &str) -> PyResult<Self> {
        let dict = data
            .cast::<PyDict>()
            .map_err(|_| invalid_type(path, "expected a dict"))?
            .clone();
        Ok(Self {
            dict,
            path: path.to_owned(),
        })
    }

    /// The top-level reader of a `from_dict` argument: errors name the fields without a prefix.
    pub fn top(data: &Bound<'py, PyAny>) -> PyResult<Self> {
        let mut reader = Self::new(data, "data")?;
        reader.path.clear();
        Ok(reader)
    }

    /// The interpreter the dict belongs to.
    pub fn py(&self) -> Python<'py> {
        self.dict.py()
    }

    /// The dotted name of `key` (`key` itself at the top level).
    fn name(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// The value of `key`, None when missing or null.
    fn optional(&self, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(self.dict.get_item(key)?.filter(|value| !value.is_none()))
    }

    /// The `(codes, scales)` token vectors under `key` (see `extract_pair`), None when missing
    /// or null.
    pub fn opt_token_vectors(&self, key: &str) -> PyResult<Option<TokenVectors>> {
        self.optional(key)?
            .map(|value| extract_pair(&value, &self.name(key)))
            .transpose()
    }

    /// The value of `key`; an `InvalidTypeError` when missing or null.
    fn required(&self, key: &str) -> PyResult<Bound<'py, PyAny>> {
        self.optional(key)?
            .ok_or_else(|| invalid_type(&self.name(key), "is required"))
    }

    /// A non-negative integer that fits `T` (bools are refused).
    fn integer<T: for<'a> FromPyObject<'a, 'py>>(
        &self,
        key: &str,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<T> {
        let field = self.name(key);
        if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
            return Err(invalid_type(&field, "expected an int"));
        }
        value
            .extract::<T>()
            .map_err(|_| invalid(&field, "out of range for a non-negative integer"))
    }

    /// A required unsigned integer.
    pub fn uint<T: for<'a> FromPyObject<'a, 'py>>(&self, key: &str) -> PyResult<T> {
        self.integer(key, &self.required(key)?)
    }

    /// An optional unsigned integer.
    pub fn opt_uint<T: for<'a> FromPyObject<'a, 'py>>(&self, key: &str) -> PyResult<Option<T>> {
        self.optional(key)?
            .map(|value| self.integer(key, &value))
            .transpose()
    }

    /// A float from a JSON number (an int is taken too; bools are refused).
    fn number(&self, key: &str, value: &Bound<'py, PyAny>) -> PyResult<f32> {
        if value.is_instance_of::<PyBool>()
            || !(value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyInt>())
        {
            return Err(invalid_type(&self.name(key), "expected a number"));
        }
        value
            .extract::<f64>()
            .map(|number| number as f32)
            .map_err(|_| invalid(&self.name(key), "not representable as a float"))
    }

    /// A required float.
    pub fn float(&self, key: &str) -> PyResult<f32> {
        self.number(key, &self.required(key)?)
    }

    /// An optional float.
    pub fn opt_float(&self, key: &str) -> PyResult<Option<f32>> {
        self.optional(key)?
            .map(|value| self.number(key, &value))
            .transpose()
    }

    /// A required bool.
    pub fn flag(&self, key: &str) -> PyResult<bool> {
        let value = self.required(key)?;
        value
            .cast::<PyBool>()
            .map(|flag| flag.is_true())
            .map_err(|_| invalid_type(&self.name(key), "expected a bool"))
    }

    fn text_of(&self, key: &str, value: &Bound<'py, PyAny>) -> PyResult<String> {
        Ok(value
            .cast::<PyString>()
            .map_err(|_| invalid_type(&self.name(key), "expected a str"))?
            .to_cow()?
            .into_owned())
    }

    /// A required string.
    pub fn text(&self, key: &str) -> PyResult<String> {
        self.text_of(key, &self.required(key)?)
    }

    /// An optional string.
    pub fn opt_text(&self, key: &str) -> PyResult<Option<String>> {
        self.optional(key)?
            .map(|value| self.text_of(key, &value))
            .transpose()
    }

    /// A memory id (32 hex digits).
    pub fn id(&self, key: &str) -> PyResult<MemoryId> {
        self.text(key)?
            .parse::<MemoryId>()
            .map_err(|_| invalid(&self.name(key), "expected 32 hex digits"))
    }

    /// A memory kind by its value (`"episode"`).
    pub fn kind(&self, key: &str) -> PyResult<MemoryKind> {
        let name = self.text(key)?;
        name.parse::<MemoryKind>()
            .map_err(|_| invalid(&self.name(key), format!("unknown memory kind {name:?}")))
    }

    /// An edge type by its value (`"caused_by"`).
    pub fn edge_type(&self, key: &str) -> PyResult<EdgeType> {
        let name = self.text(key)?;
        name.parse::<EdgeType>()
            .map_err(|_| invalid(&self.name(key), format!("unknown edge type {name:?}")))
    }

    /// A strategy by its name.
    pub fn strategy(&self, key: &str) -> PyResult<Strategy> {
        let name = self.text(key)?;
        name.parse::<Strategy>()
            .map_err(|_| invalid(&self.name(key), format!("unknown strategy {name:?}")))
    }

    /// One of `choices`, as the `'static` string of the matching choice.
    pub fn choice(&self, key: &str, choices: &[&'static str]) -> PyResult<&'static str> {
        let name = self.text(key)?;
        choices
            .iter()
            .find(|choice| **choice == name)
            .copied()
            .ok_or_else(|| {
                let expected = choices.join(", ");
                invalid(
                    &self.name(key),
                    format!("{name:?} is not one of {expected}"),
                )
            })
    }

    /// A JSON object (a memory's `context`); missing or null is the empty object.
    pub fn object(&self, key: &str) -> PyResult<Map<String, Value>> {
        match self.optional(key)? {
            Some(value) => dict_to_map(&value, &self.name(key)),
            None => Ok(Map::new()),
        }
    }

    /// An optional list of floats (an embedding).
    pub fn vector(&self, key: &str) -> PyResult<Option<Vec<f32>>> {
        let Some(value) = self.optional(key)? else {
            return Ok(None);
        };
        let field = self.name(key);
        if !value.is_instance_of::<PyList>() {
            return Err(invalid_type(&field, "expected a list of numbers or null"));
        }
        value
            .try_iter()?
            .enumerate()
            .map(|(i, item)| self.number(&format!("{key}[{i}]"), &item?))
            .collect::<PyResult<Vec<f32>>>()
            .map(Some)
    }

    /// 64 hex digits as 32 bytes (a SHA-256).
    pub fn sha256(&self, key: &str) -> PyResult<[u8; 32]> {
        let text = self.text(key)?;
        let field = self.name(key);
        let bad = || invalid(&field, "expected 64 hex digits");
        if text.len() != 64 || !text.is_ascii() {
            return Err(bad());
        }
        let mut digest = [0u8; 32];
        for (i, byte) in digest.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(digest)
    }

    /// The reader of the nested object under `key`.
    pub fn child(&self, key: &str) -> PyResult<Reader<'py>> {
        Reader::new(&self.required(key)?, &self.name(key))
    }

    /// The reader of the nested object under `key`, None when missing or null.
    pub fn opt_child(&self, key: &str) -> PyResult<Option<Reader<'py>>> {
        self.optional(key)?
            .map(|value| Reader::new(&value, &self.name(key)))
            .transpose()
    }

    /// The readers of the objects of the list under `key` (missing or null is empty).
    pub fn items(&self, key: &str) -> PyResult<Vec<Reader<'py>>> {
        let Some(value) = self.optional(key)? else {
            return Ok(Vec::new());
        };
        let field = self.name(key);
        let list = value
            .cast::<PyList>()
            .map_err(|_| invalid_type(&field, "expected a list"))?;
        list.iter()
            .enumerate()
            .map(|(i, item)| Reader::new(&item, &format!("{field}[{i}]")))
            .collect()
    }
}

/// Builds the objects of `items` with `to_dict` into a list.
pub fn list_of<'py, T>(
    py: Python<'py>,
    items: &[Py<T>],
    to_dict: impl Fn(&T, Python<'py>) -> PyResult<Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>>
where
    T: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Sync,
{
    let list = PyList::empty(py);
    for item in items {
        list.append(to_dict(item.get(), py)?)?;
    }
    Ok(list)
}

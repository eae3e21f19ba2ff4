//! A request given as one dict of its fields (the Python request model's dump, only the fields
//! the caller set): each field read by its name, its error naming it. A key that no field
//! reads is an error, so a field the Python model gains and the binding does not read is never
//! dropped silently; the defaults of the fields left out are the core's.
//!
//! A request whose core type has a serde form (`RecallRequest`, `PrimeRequest`) reads only
//! the fields that need a Python conversion by hand; [`Fields::rest`] gives every other field
//! to serde, so a new plain option of the core needs no line here.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::errors::invalid_type;
use crate::json::to_value;

/// Reads the fields of one request dict.
pub struct Fields<'py> {
    dict: Bound<'py, PyDict>,
    read: Vec<&'static str>,
}

impl<'py> Fields<'py> {
    /// The reader of `dict`.
    pub fn new(dict: &Bound<'py, PyDict>) -> Self {
        Self {
            dict: dict.clone(),
            read: Vec::new(),
        }
    }

    /// The value of field `name`, None when it is missing or None.
    pub fn object(&mut self, name: &'static str) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.read.push(name);
        Ok(self.dict.get_item(name)?.filter(|value| !value.is_none()))
    }

    /// Field `name` as a `T`, None when it is missing or None.
    pub fn value<T: for<'a> FromPyObject<'a, 'py>>(
        &mut self,
        name: &'static str,
    ) -> PyResult<Option<T>> {
        self.object(name)?
            .map(|value| {
                value
                    .extract::<T>()
                    .map_err(|_| invalid_type(name, "has the wrong type for this field"))
            })
            .transpose()
    }

    /// Field `name` as a `T`, `default` when it is missing or None.
    pub fn value_or<T: for<'a> FromPyObject<'a, 'py>>(
        &mut self,
        name: &'static str,
        default: T,
    ) -> PyResult<T> {
        Ok(self.value(name)?.unwrap_or(default))
    }

    /// Field `name` read with `read`, None when it is missing or None.
    pub fn with<T>(
        &mut self,
        name: &'static str,
        read: impl FnOnce(&Bound<'py, PyAny>, &str) -> PyResult<T>,
    ) -> PyResult<Option<T>> {
        self.object(name)?
            .map(|value| read(&value, name))
            .transpose()
    }

    /// The fields not read yet, deserialised as the core's `T` (each a JSON value, None a
    /// JSON null; one that is missing keeps `T::default()`'s): a key `T` does not know, or a
    /// value of the wrong type, is an `InvalidTypeError` naming its field.
    pub fn rest<T: DeserializeOwned>(self) -> PyResult<T> {
        let mut given = Map::new();
        for (key, value) in self.dict.iter() {
            let key: String = key
                .extract()
                .map_err(|_| invalid_type("request", "field names must be strings"))?;
            if !self.read.contains(&key.as_str()) {
                let value = to_value(&value, &key)?;
                given.insert(key, value);
            }
        }
        serde_path_to_error::deserialize(Value::Object(given)).map_err(|error| {
            let field = match error.path().to_string() {
                path if path == "." => "request".to_owned(),
                path => path,
            };
            invalid_type(&field, error.into_inner().to_string())
        })
    }

    /// Ends the reading: an `InvalidTypeError` for the first key no field read.
    pub fn finish(self) -> PyResult<()> {
        for key in self.dict.keys() {
            let key: String = key
                .extract()
                .map_err(|_| invalid_type("request", "field names must be strings"))?;
            if !self.read.contains(&key.as_str()) {
                return Err(invalid_type(&key, format!("unknown field {key:?}")));
            }
        }
        Ok(())
    }
}

//! Forgetting: what a `forget` call asks for ([`ForgetRequest`]) and answers
//! ([`ForgetResult`]), how the memories to erase are selected (by ids, by entity, by criteria,
//! by decay), and the cascade that erases everything derived from them: vectors, temporal keys,
//! access counters, edges in both directions, insights drawn from them, and the superseded flag
//! their revisions set. The engine commits the cascade in one write batch (`Engine::forget`).

mod cascade;
mod request;
mod select;

pub(crate) use cascade::Cascade;
pub use request::{
    check_limit, ForgetRequest, ForgetResult, DEFAULT_FORGET_LIMIT, MAX_FORGET_LIMIT,
};
pub(crate) use select::{select, select_decayed, Selection};

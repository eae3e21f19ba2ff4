//! How a filtered read finds the memories its filter selects, as a query planner would.
//!
//! [`FilterPlan::new`] asks the index of context values (`store/context_values.rs`), the
//! `(entity, time)` index and the conversations for the memories each indexable condition
//! selects, stopping at [`WALK_PREFILTER_MAX_MATCHES`]: `$eq`, `$in` and number ranges on a context
//! path, `entity_id` and `session_id` equality, `key` equality, `$in`, presence and string
//! ranges (from the caller keys' own index, `store/memory_keys.rs`); `$and` keeps the smallest of its parts' sets
//! (intersected), `$or` their union when every part has one. When that gives a set of at most
//! [`EXACT_SCAN_MAX_MATCHES`], the filter is *selective*: a vector search scores exactly those
//! memories (in memory, no graph walk). Otherwise the graph is searched with the filter checked
//! on the nodes it would return (hnswlib's filter functor; Qdrant's filterable HNSW does the
//! same below its own threshold); a set of at most [`WALK_PREFILTER_MAX_MATCHES`] goes with the
//! walk, which then turns a node away by its id alone, without reading its record.
//!
//! The sets are supersets (an array holds many values; numbers are indexed as f64): every
//! memory a read returns is checked against the whole filter by a [`Matcher`].

use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use serde_json::Value;

use super::op::Op;
use super::{Field, Filter, FilterView};
use crate::error::{HebbsError, Result};
use crate::memory::{IdMap, IdSet, MemoryId, StoredMemory};
use crate::store::{IndexedField, IndexedPath, KeyRange, Store, ValueLookup};

/// Most memories a filter may select to count as selective: a vector search then scores them
/// exactly instead of walking the graph. An exact scan of 4,096 vectors in memory costs about
/// what a graph search with `ef_search` 50 costs, and a filter at or below it leaves a graph
/// walk too few matches among the nodes it visits.
pub const EXACT_SCAN_MAX_MATCHES: usize = 4096;

/// Most memories a filter's index lookups may select to go with a graph walk: the walk turns
/// away every node outside them by its id (a hash probe) instead of reading its record, and a
/// walk that reaches its expansion budget scores them exactly instead of every vector. A
/// lookup past it stops there and the store's lookup cache keeps that answer, so a broad
/// filter costs one bounded scan of its index range, not one a read (until a bulk write, or a
/// delete inside its range).
pub const WALK_PREFILTER_MAX_MATCHES: usize = 16_384;

/// A filter's plan for one read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilterPlan {
    /// The memories the filter can select (a superset), when they are at most
    /// [`EXACT_SCAN_MAX_MATCHES`]; None when the filter is not selective.
    pub candidates: Option<Members>,
    /// The memories the filter can select (a superset), when they are more than
    /// [`EXACT_SCAN_MAX_MATCHES`] and at most [`WALK_PREFILTER_MAX_MATCHES`]: a graph walk
    /// returns none of the others.
    pub walk_members: Option<Members>,
}

impl FilterPlan {
    /// Plans `filter` on `store`.
    pub fn new(store: &Store, filter: &Filter) -> Result<Self> {
        let planned = candidates(store, filter, WALK_PREFILTER_MAX_MATCHES)?.map(Members::from);
        Ok(match planned {
            Some(members) if members.len() <= EXACT_SCAN_MAX_MATCHES => Self {
                candidates: Some(members),
                walk_members: None,
            },
            members => Self {
                candidates: None,
                walk_members: members,
            },
        })
    }
}

/// A plan's memories: the ids (an id may repeat, as an array holding a value twice names its
/// memory twice), and a hash set of them, built the first time a walk asks about one id.
#[derive(Clone, Debug)]
pub struct Members {
    ids: Arc<[MemoryId]>,
    /// Whether `ids` is an answer the store's lookup cache keeps: the same list (the same
    /// allocation) comes back call after call until a write changes it, so what an index
    /// learns of it (the slot of each id) can be remembered by it.
    shared: bool,
    set: OnceLock<IdSet>,
}

impl Members {
    /// The ids.
    pub fn ids(&self) -> &Arc<[MemoryId]> {
        &self.ids
    }

    /// Whether the ids are a lookup answer the store keeps (see the field).
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// The ids counted with their repeats: at least the memories.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether `id` is one of them.
    pub fn contains(&self, id: &MemoryId) -> bool {
        self.set
            .get_or_init(|| self.ids.iter().copied().collect())
            .contains(id)
    }

    /// The ids, each once, sorted.
    pub fn sorted(&self) -> Vec<MemoryId> {
        let mut ids = self.ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

impl PartialEq for Members {
    fn eq(&self, other: &Self) -> bool {
        self.sorted() == other.sorted()
    }
}

impl From<Planned> for Members {
    fn from(planned: Planned) -> Self {
        match planned {
            Planned::Lookup(ids) => Self {
                ids,
                shared: true,
                set: OnceLock::new(),
            },
            Planned::Set(set) => Self {
                ids: set.iter().copied().collect(),
                shared: false,
                set: OnceLock::from(set),
            },
        }
    }
}

/// The memories one part of a filter plans: a lookup's answer as the store gave it, or a set
/// that parts made together.
enum Planned {
    Lookup(Arc<[MemoryId]>),
    Set(IdSet),
}

impl Planned {
    fn len(&self) -> usize {
        match self {
            Self::Lookup(ids) => ids.len(),
            Self::Set(set) => set.len(),
        }
    }

    fn into_set(self) -> IdSet {
        match self {
            Self::Lookup(ids) => ids.iter().copied().collect(),
            Self::Set(set) => set,
        }
    }

    /// The memories both plan (the smaller side walked, the larger hashed).
    fn intersect(self, other: Self) -> Self {
        let (small, large) = if self.len() <= other.len() {
            (self, other)
        } else {
            (other, self)
        };
        let large = large.into_set();
        Self::Set(
            small
                .into_set()
                .into_iter()
                .filter(|id| large.contains(id))
                .collect(),
        )
    }
}

/// The memories an indexable filter selects (a superset), None when it is not indexable or
/// selects more than `limit`.
fn candidates(store: &Store, filter: &Filter, limit: usize) -> Result<Option<Planned>> {
    match filter {
        Filter::And(parts) => {
            let mut best: Option<Planned> = match key_bounds(parts) {
                Some(range) => store
                    .keys_in_range(&range, limit)?
                    .map(|ids| Planned::Set(ids.into_iter().collect())),
                None => None,
            };
            for part in parts {
                if let Some(set) = candidates(store, part, limit)? {
                    best = Some(match best {
                        Some(known) => known.intersect(set),
                        None => set,
                    });
                }
            }
            Ok(best)
        }
        Filter::Or(parts) => {
            let mut union = IdSet::default();
            for part in parts {
                let Some(set) = candidates(store, part, limit)? else {
                    return Ok(None);
                };
                union.extend(set.into_set());
                if union.len() > limit {
                    return Ok(None);
                }
            }
            Ok(Some(Planned::Set(union)))
        }
        Filter::Not(_) => Ok(None),
        Filter::Condition { field, op, value } => {
            let indexed = match field {
                Field::Context(path) => Some(IndexedPath::Context(path)),
                Field::Kind => Some(IndexedPath::Field(IndexedField::Kind)),
                Field::CreatedAt => Some(IndexedPath::Field(IndexedField::CreatedAt)),
                Field::Importance => Some(IndexedPath::Field(IndexedField::Importance)),
                Field::EntityId | Field::SessionId | Field::Key => None,
            };
            let found = match (indexed, field, op) {
                (Some(path), _, Op::Eq) => {
                    return looked_up(store.context_lookup(
                        path,
                        ValueLookup::Equal(value),
                        limit,
                    )?);
                }
                (Some(IndexedPath::Context(path)), _, Op::Exists)
                    if value.as_bool() == Some(true) =>
                {
                    let lookup = ValueLookup::Any;
                    return looked_up(store.context_lookup(
                        IndexedPath::Context(path),
                        lookup,
                        limit,
                    )?);
                }
                (Some(path), _, Op::In) => {
                    let mut all = Vec::new();
                    for option in value.as_array().into_iter().flatten() {
                        match store.context_lookup(path, ValueLookup::Equal(option), limit)? {
                            Some(ids) => all.extend(ids.iter().copied()),
                            None => return Ok(None),
                        }
                        if all.len() > limit {
                            return Ok(None);
                        }
                    }
                    Some(all)
                }
                (Some(path), _, Op::Gt | Op::Gte | Op::Lt | Op::Lte) => match value.as_f64() {
                    Some(bound) => {
                        let lookup = if matches!(op, Op::Gt | Op::Gte) {
                            ValueLookup::NumberRange {
                                lower: Some(bound),
                                upper: None,
                            }
                        } else {
                            ValueLookup::NumberRange {
                                lower: None,
                                upper: Some(bound),
                            }
                        };
                        return looked_up(store.context_lookup(path, lookup, limit)?);
                    }
                    None => None,
                },
                (None, Field::EntityId, Op::Eq) => match value.as_str() {
                    Some(entity) => {
                        let keys = store.temporal_newest_first(entity, 0, u64::MAX, limit + 1)?;
                        (keys.len() <= limit).then(|| keys.into_iter().map(|key| key.id).collect())
                    }
                    None => None,
                },
                (None, Field::Key, Op::Eq | Op::In) => {
                    let keys: Option<Vec<String>> = match value {
                        Value::Array(options) => options
                            .iter()
                            .map(|option| option.as_str().map(str::to_owned))
                            .collect(),
                        other => other.as_str().map(|key| vec![key.to_owned()]),
                    };
                    match keys {
                        Some(keys) if keys.len() <= limit => {
                            Some(store.ids_for_keys(&keys)?.into_iter().flatten().collect())
                        }
                        _ => None,
                    }
                }
                (None, Field::Key, Op::Exists) if value.as_bool() == Some(true) => {
                    store.keys_in_range(&KeyRange::default(), limit)?
                }
                (None, Field::Key, Op::Gt | Op::Gte | Op::Lt | Op::Lte) => match value.as_str() {
                    Some(bound) => store.keys_in_range(&key_range(*op, bound), limit)?,
                    None => None,
                },
                (None, Field::SessionId, Op::Eq) => match value.as_str() {
                    Some(session) => {
                        let ids = store.conversation(session, limit + 1)?;
                        (ids.len() <= limit).then_some(ids)
                    }
                    None => None,
                },
                _ => None,
            };
            Ok(found.map(|ids| Planned::Set(ids.into_iter().collect())))
        }
    }
}

/// A lookup's answer as a plan: the store's own list.
fn looked_up(answer: Option<Arc<[MemoryId]>>) -> Result<Option<Planned>> {
    Ok(answer.map(Planned::Lookup))
}

/// The one key range that the `key` string comparisons among `parts` bound on both sides
/// together (`{"key": {"$gte": "ns/", "$lt": "ns0"}}`: a prefix), None without both sides.
/// Several bounds on one side give a wider range, still a superset.
fn key_bounds(parts: &[Filter]) -> Option<KeyRange> {
    let mut range = KeyRange::default();
    for part in parts {
        if let Filter::Condition {
            field: Field::Key,
            op: op @ (Op::Gt | Op::Gte | Op::Lt | Op::Lte),
            value: Value::String(bound),
        } = part
        {
            let side = key_range(*op, bound);
            if side.lower.is_some() {
                range.lower = side.lower;
                range.lower_inclusive = side.lower_inclusive;
            }
            if side.upper.is_some() {
                range.upper = side.upper;
                range.upper_inclusive = side.upper_inclusive;
            }
        }
    }
    (range.lower.is_some() && range.upper.is_some()).then_some(range)
}

/// The keys a one-sided string comparison `op bound` selects.
fn key_range(op: Op, bound: &str) -> KeyRange {
    let bound = Some(bound.to_owned());
    match op {
        Op::Gt => KeyRange {
            lower: bound,
            lower_inclusive: false,
            ..KeyRange::default()
        },
        Op::Gte => KeyRange {
            lower: bound,
            lower_inclusive: true,
            ..KeyRange::default()
        },
        Op::Lt => KeyRange {
            upper: bound,
            upper_inclusive: false,
            ..KeyRange::default()
        },
        _ => KeyRange {
            upper: bound,
            upper_inclusive: true,
            ..KeyRange::default()
        },
    }
}

/// Whether `filter` selects each of the records `records` of memories `ids` (their sessions
/// read from the store only when the filter names `session_id`).
pub fn select_records(
    store: &Store,
    filter: &Filter,
    ids: &[MemoryId],
    records: &[&StoredMemory],
) -> Result<Vec<bool>> {
    let sessions = if filter.reads_session() {
        store.conversation_turns(ids)?
    } else {
        vec![None; ids.len()]
    };
    Ok(records
        .iter()
        .zip(&sessions)
        .map(|(record, turn)| {
            filter.matches(&FilterView::of(
                record,
                turn.as_ref().map(|turn| turn.session_id.as_str()),
            ))
        })
        .collect())
}

/// Checks memories against a filter, reading each record once per read (through the record
/// cache) and remembering the answer.
pub struct Matcher<'a> {
    store: &'a Store,
    filter: &'a Filter,
    known: Mutex<IdMap<bool>>,
    /// The first read that failed inside a callback that cannot return it.
    failure: Mutex<Option<HebbsError>>,
}

impl<'a> Matcher<'a> {
    /// A matcher of `filter` over `store`.
    pub fn new(store: &'a Store, filter: &'a Filter) -> Self {
        Self {
            store,
            filter,
            known: Mutex::default(),
            failure: Mutex::default(),
        }
    }

    /// Whether each of `ids` exists and matches, in input order.
    pub fn matching(&self, ids: &[MemoryId]) -> Result<Vec<bool>> {
        let unknown: Vec<MemoryId> = {
            let known = self.known.lock();
            ids.iter()
                .filter(|id| !known.contains_key(*id))
                .copied()
                .collect()
        };
        if !unknown.is_empty() {
            let records = self.store.cached_records(&unknown)?;
            let sessions = if self.filter.reads_session() {
                self.store.conversation_turns(&unknown)?
            } else {
                vec![None; unknown.len()]
            };
            let mut known = self.known.lock();
            for ((id, record), turn) in unknown.iter().zip(records).zip(sessions) {
                known.insert(*id, self.holds(record.as_deref(), turn.as_ref()));
            }
        }
        let known = self.known.lock();
        Ok(ids
            .iter()
            .map(|id| known.get(id).copied().unwrap_or(false))
            .collect())
    }

    /// [`Matcher::matching`] of one id for a callback that cannot return an error: a failed
    /// read counts as no match and is kept for [`Matcher::finish`].
    pub fn accepts(&self, id: &MemoryId) -> bool {
        match self.matching(std::slice::from_ref(id)) {
            Ok(found) => found[0],
            Err(error) => {
                self.failure.lock().get_or_insert(error);
                false
            }
        }
    }

    /// The first read error [`Matcher::accepts`] met, if any.
    pub fn finish(&self) -> Result<()> {
        match self.failure.lock().take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    fn holds(
        &self,
        record: Option<&StoredMemory>,
        turn: Option<&crate::store::ConversationTurn>,
    ) -> bool {
        record.is_some_and(|record| {
            self.filter.matches(&FilterView::of(
                record,
                turn.map(|turn| turn.session_id.as_str()),
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store holding `count` keys under `a/`, 5 under `mid/` and `count` under `z/`.
    fn keyed_store(dir: &std::path::Path, count: usize) -> Store {
        let store = Store::open(dir).unwrap();
        let mut batch = store.batch();
        for i in 0..count {
            batch.claim_key(&format!("a/{i:05}"), &MemoryId::new());
            batch.claim_key(&format!("z/{i:05}"), &MemoryId::new());
        }
        for i in 0..5 {
            batch.claim_key(&format!("mid/{i}"), &MemoryId::new());
        }
        store.commit(batch, false).unwrap();
        store
    }

    fn plan(store: &Store, filter: serde_json::Value) -> FilterPlan {
        FilterPlan::new(store, &Filter::parse(&filter, "filter").unwrap()).unwrap()
    }

    fn planned(store: &Store, filter: serde_json::Value) -> Option<usize> {
        plan(store, filter).candidates.map(|ids| ids.len())
    }

    fn walked(store: &Store, filter: serde_json::Value) -> Option<usize> {
        plan(store, filter).walk_members.map(|ids| ids.len())
    }

    #[test]
    fn a_set_past_the_exact_scan_limit_goes_with_the_walk_up_to_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let count = EXACT_SCAN_MAX_MATCHES + 10;
        let store = keyed_store(dir.path(), count);
        let one_sided = serde_json::json!({"key": {"$lt": "mid0"}});
        assert_eq!(walked(&store, one_sided), Some(count + 5));
        let small = serde_json::json!({"key": {"$in": ["mid/1", "mid/2"]}});
        assert_eq!(walked(&store, small.clone()), None, "scanned exactly");
        assert_eq!(planned(&store, small), Some(2));
        let both = serde_json::json!({"$or": [{"key": {"$gt": "z/"}}, {"key": "mid/3"}]});
        assert_eq!(walked(&store, both), Some(count + 1));
        let everything = serde_json::json!({"key": {"$exists": true}});
        assert_eq!(walked(&store, everything), Some(2 * count + 5));
        let unplanned = serde_json::json!({"$not": {"key": "mid/3"}});
        assert_eq!(walked(&store, unplanned), None);

        let dir = tempfile::tempdir().unwrap();
        let store = keyed_store(dir.path(), WALK_PREFILTER_MAX_MATCHES / 2 + 10);
        let everything = serde_json::json!({"key": {"$exists": true}});
        assert_eq!(
            walked(&store, everything.clone()),
            None,
            "past the walk's limit"
        );
        assert_eq!(planned(&store, everything), None);
    }

    #[test]
    fn key_conditions_are_planned_from_the_key_index() {
        let dir = tempfile::tempdir().unwrap();
        let store = keyed_store(dir.path(), EXACT_SCAN_MAX_MATCHES + 10);
        // Each side alone holds more than the limit: only the range they make together is small.
        let prefix = serde_json::json!({"key": {"$gte": "mid/", "$lt": "mid0"}});
        assert_eq!(planned(&store, prefix), Some(5));
        let one_sided = serde_json::json!({"key": {"$lt": "mid0"}});
        assert_eq!(
            planned(&store, one_sided),
            None,
            "more than the exact-scan limit"
        );
        let big = serde_json::json!({"key": {"$gte": "a/", "$lt": "a0"}});
        assert_eq!(planned(&store, big), None);
        let listed = serde_json::json!({"key": {"$in": ["mid/1", "a/00001", "none"]}});
        assert_eq!(planned(&store, listed), Some(2));
        assert_eq!(
            planned(&store, serde_json::json!({"key": "mid/4"})),
            Some(1)
        );
        assert_eq!(
            planned(&store, serde_json::json!({"key": {"$exists": true}})),
            None
        );
    }
}

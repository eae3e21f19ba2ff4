//! The `conversations` column family: the memories remembered with one `session_id`, in
//! conversation order (`created_at`, then arrival: the changelog sequence of the write), so
//! "the turns around a memory" is a bounded seek instead of an application's edge list.
//!
//! Two kinds of keys, each behind its own tag byte:
//! - order: `0x01 ‖ session ‖ 0x00 ‖ created_at BE ‖ seq BE ‖ id` -> empty;
//! - position: `0x02 ‖ id` -> the memory's order key, so a lookup (and forget) finds its place.
//!
//! Session ids hold no control characters (checked on input), so `0x00` ends the session.

use rayon::prelude::*;
use rocksdb::ReadOptions;

use super::batch::StoreBatch;
use super::column_families::CONVERSATIONS;
use super::db::Store;
use super::runs::runs;
use crate::error::Result;
use crate::memory::MemoryId;

const ORDER_TAG: u8 = 0x01;
const POSITION_TAG: u8 = 0x02;
const SESSION_END: u8 = 0x00;
/// Bytes after the session's terminator: created_at, seq and id.
const ORDER_TAIL: usize = 8 + 8 + MemoryId::LEN;

fn order_key(session: &str, created_at: u64, seq: u64, id: &MemoryId) -> Vec<u8> {
    let mut key = session_prefix(session);
    key.extend_from_slice(&created_at.to_be_bytes());
    key.extend_from_slice(&seq.to_be_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}

fn session_prefix(session: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(2 + session.len() + ORDER_TAIL);
    key.push(ORDER_TAG);
    key.extend_from_slice(session.as_bytes());
    key.push(SESSION_END);
    key
}

fn position_key(id: &MemoryId) -> [u8; 1 + MemoryId::LEN] {
    let mut key = [POSITION_TAG; 1 + MemoryId::LEN];
    key[1..].copy_from_slice(id.as_bytes());
    key
}

/// The id at the end of an order key, if the key has the layout.
fn id_of(order: &[u8]) -> Option<MemoryId> {
    let start = order.len().checked_sub(MemoryId::LEN)?;
    MemoryId::from_slice(&order[start..], "conversation key").ok()
}

/// A memory's turn in a conversation: the session and the time its place is ordered by (its
/// `created_at`, or, for a revision, that of the memory whose place it took).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversationTurn {
    /// The `session_id` it was remembered with.
    pub session_id: String,
    /// The time, in microseconds, that orders it among the conversation's turns.
    pub at: u64,
}

/// The turn an order key records, if the key has the layout.
fn turn_of(order: &[u8]) -> Option<ConversationTurn> {
    let end = order.len().checked_sub(ORDER_TAIL + 1)?;
    if order.first() != Some(&ORDER_TAG) || order.get(end) != Some(&SESSION_END) {
        return None;
    }
    let at = order.get(end + 1..end + 9)?.try_into().ok()?;
    Some(ConversationTurn {
        session_id: String::from_utf8(order.get(1..end)?.to_vec()).ok()?,
        at: u64::from_be_bytes(at),
    })
}

/// Where a memory sits in its conversation (`Store::conversation_positions`): its order key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversationPlace {
    order: Box<[u8]>,
}

impl ConversationPlace {
    /// The conversation's key: equal for the memories of one `session_id`.
    pub fn conversation(&self) -> &[u8] {
        &self.order[..self.order.len() - ORDER_TAIL]
    }
}

impl StoreBatch<'_> {
    /// Places memory `id` (created at `created_at`, written at changelog sequence `seq`) in
    /// conversation `session`.
    pub fn put_conversation_turn(
        &mut self,
        session: &str,
        created_at: u64,
        seq: u64,
        id: &MemoryId,
    ) {
        let cf = self.store.cf(CONVERSATIONS);
        let order = order_key(session, created_at, seq, id);
        self.batch.put_cf(cf, position_key(id), &order);
        self.batch.put_cf(cf, order, []);
    }

    /// Puts memory `new` in the place of memory `old` in `old`'s conversation (same session,
    /// `created_at` and arrival), taking `old` out of it: a revision continues the
    /// conversation where the memory it revises was. Nothing happens when `old` is in none.
    pub fn replace_conversation_turn(&mut self, old: &MemoryId, new: &MemoryId) -> Result<()> {
        let cf = self.store.cf(CONVERSATIONS);
        let position = position_key(old);
        let Some(order) = self.store.db.get_pinned_cf(cf, position)? else {
            return Ok(());
        };
        let Some(end) = order.len().checked_sub(MemoryId::LEN) else {
            return Ok(());
        };
        let mut replaced = order[..end].to_vec();
        replaced.extend_from_slice(new.as_bytes());
        self.batch.delete_cf(cf, &*order);
        self.batch.delete_cf(cf, position);
        self.batch.put_cf(cf, position_key(new), &replaced);
        self.batch.put_cf(cf, replaced, []);
        Ok(())
    }

    /// Removes memory `id` from its conversation, if it is in one.
    pub fn delete_conversation_turn(&mut self, id: &MemoryId) -> Result<()> {
        let cf = self.store.cf(CONVERSATIONS);
        let position = position_key(id);
        if let Some(order) = self.store.db.get_pinned_cf(cf, position)? {
            self.batch.delete_cf(cf, &*order);
            self.batch.delete_cf(cf, position);
            self.touched.touch(CONVERSATIONS, &order);
            self.touched.touch(CONVERSATIONS, &position);
        }
        Ok(())
    }
}

impl Store {
    /// For each of `ids`, its place in its conversation, in one multi-get; None for a memory
    /// in none.
    pub fn conversation_places(&self, ids: &[MemoryId]) -> Result<Vec<Option<ConversationPlace>>> {
        let cf = self.cf(CONVERSATIONS);
        let keys: Vec<[u8; 1 + MemoryId::LEN]> = ids.iter().map(position_key).collect();
        self.db
            .batched_multi_get_cf(cf, keys.iter(), false)
            .into_iter()
            .map(|found| {
                Ok(found?
                    .filter(|order| order.len() > ORDER_TAIL)
                    .map(|order| ConversationPlace {
                        order: (*order).into(),
                    }))
            })
            .collect()
    }

    /// For each of `places`, the memories up to `window` before and after it in its
    /// conversation (nearest first on each side, the earlier side first). The places are
    /// split into runs (`runs.rs`) that rayon looks up in parallel, one iterator a run
    /// (creating one per place cost more than its seeks).
    pub fn conversation_neighbours(
        &self,
        places: &[&ConversationPlace],
        window: usize,
    ) -> Result<Vec<Vec<MemoryId>>> {
        let cf = self.cf(CONVERSATIONS);
        let found: Vec<Vec<Vec<MemoryId>>> = runs(places)
            .map(|run| {
                let mut iter = self.db.raw_iterator_cf(cf);
                let mut out = Vec::with_capacity(run.len());
                for place in run {
                    let order = &*place.order;
                    let prefix = place.conversation();
                    let same_session =
                        |key: &[u8]| key.len() == order.len() && key.starts_with(prefix);
                    let mut around = Vec::with_capacity(2 * window);
                    for forward in [false, true] {
                        iter.seek(order);
                        for _ in 0..window {
                            if forward {
                                iter.next();
                            } else {
                                iter.prev();
                            }
                            match iter.key().filter(|key| same_session(key)).and_then(id_of) {
                                Some(id) => around.push(id),
                                None => break,
                            }
                        }
                        iter.status()?;
                    }
                    out.push(around);
                }
                Ok(out)
            })
            .collect::<Result<_>>()?;
        Ok(found.into_iter().flatten().collect())
    }

    /// The turn each of `ids` takes in its conversation, None for a memory in none.
    pub fn conversation_turns(&self, ids: &[MemoryId]) -> Result<Vec<Option<ConversationTurn>>> {
        let cf = self.cf(CONVERSATIONS);
        let keys: Vec<[u8; 1 + MemoryId::LEN]> = ids.iter().map(position_key).collect();
        self.db
            .batched_multi_get_cf(cf, keys.iter(), false)
            .into_iter()
            .map(|position| Ok(position?.as_deref().and_then(turn_of)))
            .collect()
    }

    /// Every memory of conversation `session`, in conversation order, at most `limit`.
    pub fn conversation(&self, session: &str, limit: usize) -> Result<Vec<MemoryId>> {
        let cf = self.cf(CONVERSATIONS);
        let prefix = session_prefix(session);
        let mut upper = prefix.clone();
        *upper
            .last_mut()
            .expect("the prefix ends with the terminator") = SESSION_END + 1;
        let mut options = ReadOptions::default();
        options.set_iterate_upper_bound(upper);
        let mut iter = self.db.raw_iterator_cf_opt(cf, options);
        iter.seek(&prefix);
        let mut found = Vec::new();
        while found.len() < limit {
            match iter.key().and_then(id_of) {
                Some(id) => found.push(id),
                None => break,
            }
            iter.next();
        }
        iter.status()?;
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parallel lookup answers every place in input order with the memories around it,
    /// across conversations and runs, at both ends of a conversation too.
    #[test]
    fn neighbours_of_many_places_are_those_around_each_in_input_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let sessions = ["a", "b", "c"];
        let turns: Vec<Vec<MemoryId>> = sessions
            .iter()
            .map(|_| (0..12).map(|_| MemoryId::new()).collect())
            .collect();
        let mut batch = store.batch();
        for (session, ids) in sessions.iter().zip(&turns) {
            for (at, id) in ids.iter().enumerate() {
                batch.put_conversation_turn(session, at as u64, 0, id);
            }
        }
        store.commit(batch, false).unwrap();
        let mut wanted: Vec<(usize, usize)> = (0..12)
            .flat_map(|at| (0..sessions.len()).map(move |s| (s, at)))
            .collect();
        wanted.reverse();
        let ids: Vec<MemoryId> = wanted.iter().map(|(s, at)| turns[*s][*at]).collect();
        let places: Vec<ConversationPlace> = store
            .conversation_places(&ids)
            .unwrap()
            .into_iter()
            .map(Option::unwrap)
            .collect();
        let window = 2;
        let found = store
            .conversation_neighbours(&places.iter().collect::<Vec<_>>(), window)
            .unwrap();
        for ((s, at), around) in wanted.iter().zip(&found) {
            let ids = &turns[*s];
            let before = (at.saturating_sub(window)..*at).rev().map(|i| ids[i]);
            let after = (at + 1..(at + 1 + window).min(ids.len())).map(|i| ids[i]);
            assert_eq!(*around, before.chain(after).collect::<Vec<_>>());
        }
    }
}

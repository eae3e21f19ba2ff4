//! Documents written since the last commit of the full-text index. tantivy only searches
//! committed segments, and a commit costs tens of milliseconds (it syncs files), so recent
//! documents are also kept here, tokenised, and scored by searches with the same BM25 formula
//! as tantivy's (k1 = 1.2, b = 0.75), using the committed index's statistics plus their own.
//! Documents deleted since the last commit are remembered so searches can drop them.

use std::collections::{HashMap, HashSet};

use crate::memory::MemoryId;

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// One uncommitted document.
pub(super) struct PendingDoc {
    pub id: MemoryId,
    pub entity: Option<String>,
    pub tokens: Vec<String>,
}

/// Corpus statistics of the committed index.
pub(super) struct CommittedStats {
    pub docs: u64,
    pub tokens: u64,
}

/// Uncommitted additions and deletions.
#[derive(Default)]
pub(super) struct Uncommitted {
    docs: Vec<PendingDoc>,
    deleted: HashSet<MemoryId>,
}

impl Uncommitted {
    pub fn add(&mut self, doc: PendingDoc) {
        self.deleted.remove(&doc.id);
        self.docs.retain(|existing| existing.id != doc.id);
        self.docs.push(doc);
    }

    pub fn delete(&mut self, id: MemoryId) {
        self.docs.retain(|existing| existing.id != id);
        self.deleted.insert(id);
    }

    pub fn clear(&mut self) {
        self.docs.clear();
        self.deleted.clear();
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_deleted(&self, id: &MemoryId) -> bool {
        self.deleted.contains(id)
    }

    pub fn deleted_len(&self) -> usize {
        self.deleted.len()
    }

    /// BM25 scores of the pending documents containing any of `terms` (unique, tokenised),
    /// only `entity`'s when given. `committed_freq` gives a term's committed document frequency.
    pub fn score(
        &self,
        terms: &[String],
        entity: Option<&str>,
        committed: &CommittedStats,
        committed_freq: impl Fn(&str) -> u64,
    ) -> Vec<(MemoryId, f32)> {
        if self.docs.is_empty() || terms.is_empty() {
            return Vec::new();
        }
        let docs = committed.docs + self.docs.len() as u64;
        let tokens =
            committed.tokens + self.docs.iter().map(|d| d.tokens.len() as u64).sum::<u64>();
        let average = (tokens as f32 / docs.max(1) as f32).max(1.0);
        let counts: Vec<HashMap<&str, u32>> = self
            .docs
            .iter()
            .map(|doc| {
                let mut counts = HashMap::new();
                for token in &doc.tokens {
                    *counts.entry(token.as_str()).or_insert(0) += 1;
                }
                counts
            })
            .collect();
        let weights: Vec<f32> = terms
            .iter()
            .map(|term| {
                let pending = counts
                    .iter()
                    .filter(|c| c.contains_key(term.as_str()))
                    .count();
                let freq = committed_freq(term) + pending as u64;
                idf(freq.min(docs), docs) * (1.0 + K1)
            })
            .collect();
        self.docs
            .iter()
            .zip(&counts)
            .filter(|(doc, _)| entity.is_none_or(|wanted| doc.entity.as_deref() == Some(wanted)))
            .filter_map(|(doc, counts)| {
                let norm = K1 * (1.0 - B + B * doc.tokens.len() as f32 / average);
                let score: f32 = terms
                    .iter()
                    .zip(&weights)
                    .filter_map(|(term, weight)| {
                        counts.get(term.as_str()).map(|tf| {
                            let tf = *tf as f32;
                            weight * tf / (tf + norm)
                        })
                    })
                    .sum();
                (score > 0.0).then_some((doc.id, score))
            })
            .collect()
    }
}

/// tantivy's BM25 inverse document frequency.
fn idf(doc_freq: u64, doc_count: u64) -> f32 {
    let x = ((doc_count - doc_freq) as f32 + 0.5) / (doc_freq as f32 + 0.5);
    (1.0 + x).ln()
}

//! The composite score of seed 000:
//! `w_relevance*relevance + w_recency*recency + w_importance*importance + w_reinforcement*reinforcement`
//! with `recency = 1 - age/max_age` (clamped to 0..=1) and
//! `reinforcement = relevance * log2(1 + access_count) / log2(1 + cap)` (the log-scaled count
//! clamped to 0..=1).
//!
//! **Reinforcement is gated by relevance.** Seed 000 counts how often a memory was recalled; a
//! count that scored the same for every cue made each returned memory outrank more relevant
//! ones for later, unrelated cues, and so be returned and counted again (measured on LoCoMo:
//! docs/hybrid.md). Weighted by the memory's relevance to this cue, the count can lift it over
//! a memory at most `1 + w_reinforcement / w_relevance` times as relevant (1.2 with the
//! default weights): it breaks near-ties in favour of what was useful before, and never
//! crowds a better match out.

use crate::error::{HebbsError, Result};

/// Default weight of relevance.
pub const DEFAULT_W_RELEVANCE: f32 = 0.5;
/// Default weight of recency.
pub const DEFAULT_W_RECENCY: f32 = 0.2;
/// Default weight of importance.
pub const DEFAULT_W_IMPORTANCE: f32 = 0.2;
/// Default weight of reinforcement.
pub const DEFAULT_W_REINFORCEMENT: f32 = 0.1;
/// Default age at which recency reaches 0: 30 days, in microseconds.
pub const DEFAULT_MAX_AGE_US: u64 = 30 * 24 * 3600 * 1_000_000;
/// Default access count at which reinforcement reaches 1.
pub const DEFAULT_REINFORCEMENT_CAP: u64 = 100;

/// Weights of the composite score and the scales of its signals (seed 003 `ScoringWeights`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoringWeights {
    /// Weight of relevance (the strategy's raw match).
    pub w_relevance: f32,
    /// Weight of recency.
    pub w_recency: f32,
    /// Weight of the stored importance.
    pub w_importance: f32,
    /// Weight of reinforcement (recall frequency).
    pub w_reinforcement: f32,
    /// Age, in microseconds, at which recency reaches 0.
    pub max_age_us: u64,
    /// Access count at which reinforcement reaches 1.
    pub reinforcement_cap: u64,
}

impl Default for ScoringWeights {
    fn default() -> Self {
        Self {
            w_relevance: DEFAULT_W_RELEVANCE,
            w_recency: DEFAULT_W_RECENCY,
            w_importance: DEFAULT_W_IMPORTANCE,
            w_reinforcement: DEFAULT_W_REINFORCEMENT,
            max_age_us: DEFAULT_MAX_AGE_US,
            reinforcement_cap: DEFAULT_REINFORCEMENT_CAP,
        }
    }
}

impl ScoringWeights {
    /// Checks every weight is finite and non-negative and the scales are positive.
    pub fn validate(&self) -> Result<()> {
        let weights = [
            ("scoring_weights.w_relevance", self.w_relevance),
            ("scoring_weights.w_recency", self.w_recency),
            ("scoring_weights.w_importance", self.w_importance),
            ("scoring_weights.w_reinforcement", self.w_reinforcement),
        ];
        for (field, value) in weights {
            if !value.is_finite() || value < 0.0 {
                return Err(HebbsError::invalid(
                    field,
                    format!("{value} must be finite and non-negative"),
                ));
            }
        }
        if self.max_age_us == 0 {
            return Err(HebbsError::invalid(
                "scoring_weights.max_age_us",
                "must be positive",
            ));
        }
        if self.reinforcement_cap == 0 {
            return Err(HebbsError::invalid(
                "scoring_weights.reinforcement_cap",
                "must be positive",
            ));
        }
        Ok(())
    }

    /// `1 - age/max_age`, clamped; a memory dated in the future counts as brand new.
    pub fn recency(&self, created_at_us: u64, now_us: u64) -> f32 {
        let age = now_us.saturating_sub(created_at_us) as f64;
        (1.0 - age / self.max_age_us as f64).clamp(0.0, 1.0) as f32
    }

    /// `log2(1 + access_count) / log2(1 + cap)`, clamped to 1: the count's part of the
    /// reinforcement signal, before the relevance gate.
    pub fn reinforcement(&self, access_count: u64) -> f32 {
        let value =
            (1.0 + access_count as f64).log2() / (1.0 + self.reinforcement_cap as f64).log2();
        value.min(1.0) as f32
    }
}

/// The four signals of one memory's composite score, each in 0..=1, as a result reports them
/// (`RecallResult::signals`): the score is [`ScoringWeights::combine`] of them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScoreSignals {
    /// How well the memory matches the cue: the best strategy relevance, or the calibrated
    /// score of the re-rank stage when it scored the memory.
    pub relevance: f32,
    /// `1 - age/max_age`, clamped.
    pub recency: f32,
    /// The stored importance.
    pub importance: f32,
    /// `relevance * log2(1 + access_count) / log2(1 + cap)` (the count's part clamped to 1).
    pub reinforcement: f32,
}

impl ScoreSignals {
    /// Each signal with its name, in the composite's order: what results report as `scores`.
    pub fn named(&self) -> [(&'static str, f32); 4] {
        [
            ("relevance", self.relevance),
            ("recency", self.recency),
            ("importance", self.importance),
            ("reinforcement", self.reinforcement),
        ]
    }
}

impl ScoringWeights {
    /// The signals of a memory with this `relevance` (clamped to 0..=1), creation time,
    /// importance and access count, as of `now_us`.
    pub fn signals(
        &self,
        relevance: f32,
        created_at_us: u64,
        importance: f32,
        access_count: u64,
        now_us: u64,
    ) -> ScoreSignals {
        let relevance = relevance.clamp(0.0, 1.0);
        ScoreSignals {
            relevance,
            recency: self.recency(created_at_us, now_us),
            importance,
            reinforcement: relevance * self.reinforcement(access_count),
        }
    }

    /// The composite score of a memory as a function of its relevance: `(slope, offset)` with
    /// `score = slope * relevance + offset` for every relevance in 0..=1 (what the re-rank
    /// stage bounds a candidate's score with before it knows its relevance).
    pub fn relevance_line(
        &self,
        created_at_us: u64,
        importance: f32,
        access_count: u64,
        now_us: u64,
    ) -> (f32, f32) {
        let slope = self.w_relevance + self.w_reinforcement * self.reinforcement(access_count);
        let offset =
            self.w_recency * self.recency(created_at_us, now_us) + self.w_importance * importance;
        (slope, offset)
    }

    /// The composite score of `signals`: `w_relevance*relevance + w_recency*recency +
    /// w_importance*importance + w_reinforcement*reinforcement`.
    pub fn combine(&self, signals: &ScoreSignals) -> f32 {
        self.w_relevance * signals.relevance
            + self.w_recency * signals.recency
            + self.w_importance * signals.importance
            + self.w_reinforcement * signals.reinforcement
    }
}

/// The composite score of one memory.
pub fn composite_score(
    weights: &ScoringWeights,
    relevance: f32,
    created_at_us: u64,
    importance: f32,
    access_count: u64,
    now_us: u64,
) -> f32 {
    weights.combine(&weights.signals(relevance, created_at_us, importance, access_count, now_us))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The seed's formula, written out plainly in f64.
    fn reference(
        w: [f64; 4],
        max_age: f64,
        cap: f64,
        relevance: f64,
        age: f64,
        importance: f64,
        count: f64,
    ) -> f64 {
        let recency = (1.0 - age / max_age).clamp(0.0, 1.0);
        let reinforcement = relevance * ((1.0 + count).log2() / (1.0 + cap).log2()).min(1.0);
        w[0] * relevance + w[1] * recency + w[2] * importance + w[3] * reinforcement
    }

    #[test]
    fn seed_example_scores_080() {
        let now = 1_700_000_000_000_000;
        let score = composite_score(&ScoringWeights::default(), 1.0, now, 0.5, 0, now);
        assert!((score - 0.80).abs() < 1e-6, "{score}");
    }

    #[test]
    fn thirty_day_old_memory_has_no_recency() {
        let weights = ScoringWeights::default();
        assert_eq!(weights.recency(0, DEFAULT_MAX_AGE_US), 0.0);
        assert_eq!(weights.recency(0, 2 * DEFAULT_MAX_AGE_US), 0.0);
        assert_eq!(weights.recency(10, 5), 1.0);
        assert_eq!(weights.reinforcement(100), 1.0);
        assert_eq!(weights.reinforcement(0), 0.0);
    }

    #[test]
    fn the_reinforcement_signal_is_gated_by_relevance() {
        let weights = ScoringWeights::default();
        let now = 1_700_000_000_000_000;
        assert_eq!(weights.signals(0.0, now, 0.5, 100, now).reinforcement, 0.0);
        assert_eq!(weights.signals(1.0, now, 0.5, 100, now).reinforcement, 1.0);
        assert_eq!(weights.signals(0.5, now, 0.5, 100, now).reinforcement, 0.5);
        assert_eq!(weights.signals(0.5, now, 0.5, 0, now).reinforcement, 0.0);
    }

    proptest! {
        #[test]
        fn matches_reference_formula(
            w in proptest::array::uniform4(0.0f32..2.0),
            max_age in 1u64..(1u64 << 50),
            cap in 1u64..10_000,
            relevance in 0.0f32..=1.0,
            age in 0u64..(1u64 << 52),
            importance in 0.0f32..=1.0,
            count in 0u64..1_000_000,
        ) {
            let weights = ScoringWeights {
                w_relevance: w[0], w_recency: w[1], w_importance: w[2], w_reinforcement: w[3],
                max_age_us: max_age, reinforcement_cap: cap,
            };
            let now = 1u64 << 53;
            let got = composite_score(&weights, relevance, now - age, importance, count, now) as f64;
            let want = reference(
                w.map(f64::from), max_age as f64, cap as f64, relevance.into(), age as f64,
                importance.into(), count as f64,
            );
            let tolerance = 1e-5 + 1e-5 * want.abs();
            prop_assert!((got - want).abs() <= tolerance, "got {got}, want {want}");
            let (slope, offset) = weights.relevance_line(now - age, importance, count, now);
            let line = f64::from(slope) * f64::from(relevance) + f64::from(offset);
            prop_assert!((line - want).abs() <= tolerance, "line {line}, want {want}");
        }

        #[test]
        fn reinforcement_never_lifts_a_memory_over_one_more_than_its_bound_more_relevant(
            weak in 0.0f32..=1.0,
            ratio in 1.0f32..5.0,
            count in 0u64..1_000_000,
        ) {
            let weights = ScoringWeights::default();
            let strong = (weak * ratio).min(1.0);
            let bound = 1.0 + weights.w_reinforcement / weights.w_relevance;
            let now = 1u64 << 53;
            let recalled = composite_score(&weights, weak, now, 0.5, count, now);
            let better = composite_score(&weights, strong, now, 0.5, 0, now);
            if strong > weak * bound + 1e-4 {
                prop_assert!(recalled < better, "{recalled} >= {better}");
            }
        }
    }

    #[test]
    fn rejects_negative_and_nan_weights() {
        let mut weights = ScoringWeights {
            w_recency: -0.1,
            ..Default::default()
        };
        assert!(
            matches!(weights.validate(), Err(HebbsError::InvalidInput { field, .. }) if field == "scoring_weights.w_recency")
        );
        weights.w_recency = f32::NAN;
        assert!(weights.validate().is_err());
        assert!(ScoringWeights {
            max_age_us: 0,
            ..Default::default()
        }
        .validate()
        .is_err());
    }
}

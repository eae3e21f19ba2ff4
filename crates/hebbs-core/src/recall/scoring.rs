//! The composite score of seed 000:
//! `w_relevance*relevance + w_recency*recency + w_importance*importance + w_reinforcement*reinforcement`
//! with `recency = 1 - age/max_age` (clamped to 0..=1) and
//! `reinforcement = log2(1 + access_count) / log2(1 + cap)` (clamped to 0..=1).

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

    /// `log2(1 + access_count) / log2(1 + cap)`, clamped to 1.
    pub fn reinforcement(&self, access_count: u64) -> f32 {
        let value =
            (1.0 + access_count as f64).log2() / (1.0 + self.reinforcement_cap as f64).log2();
        value.min(1.0) as f32
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
    weights.w_relevance * relevance.clamp(0.0, 1.0)
        + weights.w_recency * weights.recency(created_at_us, now_us)
        + weights.w_importance * importance
        + weights.w_reinforcement * weights.reinforcement(access_count)
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
        let reinforcement = ((1.0 + count).log2() / (1.0 + cap).log2()).min(1.0);
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

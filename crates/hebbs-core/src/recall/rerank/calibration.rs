//! The stage score as a relevance signal: per-query min-max normalisation over the head (as
//! Generative Agents normalises its signals), so that relevance spans 0..=1 in every recall and
//! weighs in seed 000's composite as much against recency and importance whatever the cue.
//!
//! `relevance = (total - floor) / (best - floor)`, clamped to 0..=1: `best` is the best stage
//! score in the head (1 for that candidate), `floor` the head's typical score: the
//! [`FLOOR_QUANTILE`] quantile of its scores before their conversation neighbours count (their
//! `base`, which the stage knows before it reads any neighbour, so the second pass can bound
//! every candidate's composite score; the neighbours add about 0.1, so it is near the median
//! final score). Candidates at or below it, most of a head of 150, get 0: the spread goes to
//! the candidates that stand out. A head whose scores are all equal gives 1 to all.
//!
//! Measured (`benches/locomo/calibration.py`, docs/hybrid.md) against a logistic curve fitted
//! to "is a gold evidence turn" (Platt scaling), a fixed linear map and a floor at the lowest
//! score: on the LoCoMo dev conversations, where every memory is older than the 30 days of
//! recency, all keep the stage's order within 0.005; with the conversations moved so their last
//! session is today, recency outweighed the probability-like logistic relevance (R@10 0.27) and
//! the linear one (0.17), less so the min-max one with the lowest score as floor (0.73), least
//! the one with a typical floor (0.76 to 0.78).

/// The quantile of the head's scores before the neighbour signals that gets relevance 0.
pub const FLOOR_QUANTILE: f32 = 0.75;

/// The normalisation of one recall's stage scores (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// The head's typical score ([`Calibration::floor_of`]): relevance 0.
    pub floor: f32,
    /// The best score in the head: relevance 1.
    pub best: f32,
}

impl Calibration {
    /// The [`FLOOR_QUANTILE`] quantile of `scores` (the nearest rank below it; negative
    /// infinity for none).
    pub fn floor_of(mut scores: Vec<f32>) -> f32 {
        if scores.is_empty() {
            return f32::NEG_INFINITY;
        }
        let at = ((scores.len() - 1) as f32 * FLOOR_QUANTILE) as usize;
        *scores.select_nth_unstable_by(at, f32::total_cmp).1
    }

    /// The relevance signal of stage score `total`: increasing in it, in 0..=1.
    pub fn relevance(&self, total: f32) -> f32 {
        let spread = self.best - self.floor;
        if spread > 0.0 && spread.is_finite() {
            ((total - self.floor) / spread).clamp(0.0, 1.0)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_floor_is_the_upper_quartile() {
        let scores: Vec<f32> = (0..9).rev().map(|i| i as f32).collect();
        assert_eq!(Calibration::floor_of(scores), 6.0);
        assert_eq!(Calibration::floor_of(vec![0.3]), 0.3);
        assert_eq!(Calibration::floor_of(Vec::new()), f32::NEG_INFINITY);
    }

    #[test]
    fn the_best_is_one_the_floor_zero_and_a_flat_head_all_one() {
        let calibration = Calibration {
            floor: 0.4,
            best: 1.2,
        };
        assert_eq!(calibration.relevance(1.2), 1.0);
        assert_eq!(calibration.relevance(0.4), 0.0);
        assert!((calibration.relevance(0.8) - 0.5).abs() < 1e-6);
        let flat = Calibration {
            floor: 0.7,
            best: 0.7,
        };
        assert_eq!(flat.relevance(0.7), 1.0);
    }

    proptest! {
        #[test]
        fn relevance_is_min_max_clamped_and_never_decreasing(
            floor in -1.0f32..2.0,
            spread in 0.0f32..2.0,
            a in -1.0f32..4.0,
            b in -1.0f32..4.0,
        ) {
            let calibration = Calibration { floor, best: floor + spread };
            let (low, high) = if a <= b { (a, b) } else { (b, a) };
            let (x, y) = (calibration.relevance(low), calibration.relevance(high));
            prop_assert!((0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&y));
            prop_assert!(x <= y);
            if spread > 1e-3 {
                let want = f64::from((low - floor) / spread).clamp(0.0, 1.0);
                prop_assert!((f64::from(x) - want).abs() < 1e-5);
            }
        }
    }
}

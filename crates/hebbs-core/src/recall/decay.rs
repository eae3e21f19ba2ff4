//! The decay score of a memory: its importance, halved for every half-life that passed since it
//! was last accessed (or created), where each recall lengthens the half-life:
//!
//! `decay = importance * 0.5 ^ (idle / (half_life * (1 + log2(1 + access_count))))`
//!
//! It is computed when a memory is read, so it is always current and costs no background pass.

/// Half-life of an unaccessed memory: 30 days, in microseconds.
pub const DEFAULT_DECAY_HALF_LIFE_US: u64 = 30 * 24 * 3600 * 1_000_000;

/// The decay score at `now_us`.
pub fn decay_score(importance: f32, last_active_us: u64, access_count: u64, now_us: u64) -> f32 {
    let idle = now_us.saturating_sub(last_active_us) as f64;
    let half_life = DEFAULT_DECAY_HALF_LIFE_US as f64 * (1.0 + (1.0 + access_count as f64).log2());
    (f64::from(importance) * 0.5f64.powf(idle / half_life)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_after_one_half_life_and_reinforcement_slows_it() {
        let fresh = decay_score(0.8, 0, 0, 0);
        assert!((fresh - 0.8).abs() < 1e-6);
        let idle = decay_score(0.8, 0, 0, DEFAULT_DECAY_HALF_LIFE_US);
        assert!((idle - 0.4).abs() < 1e-6);
        assert!(decay_score(0.8, 0, 10, DEFAULT_DECAY_HALF_LIFE_US) > idle);
    }
}

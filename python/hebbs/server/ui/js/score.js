/**
 * The composite score broken into its four weighted signals, with the engine's formula
 * (`crates/hebbs-core/src/recall/scoring.rs`): relevance, recency `1 - age / max_age`,
 * importance, and reinforcement `log2(1 + access count) / log2(1 + cap)`, each times its weight.
 */
/** The engine's default weights (`ScoringWeights::default`). */
export const DEFAULT_WEIGHTS = {
    w_relevance: 0.5,
    w_recency: 0.2,
    w_importance: 0.2,
    w_reinforcement: 0.1,
};
/** Recency reaches 0 at this age: 30 days, in microseconds. */
export const MAX_AGE_US = 30 * 86_400 * 1_000_000;
/** Reinforcement reaches 1 at this many recalls. */
export const REINFORCEMENT_CAP = 100;
export const SIGNALS = ['relevance', 'recency', 'importance', 'reinforcement'];
/** Each signal's weighted part of `result`'s score, as of `nowUs`. The access count the
 * answer shows already counts this recall, which the engine scored without. */
export function breakdown(result, weights, nowUs) {
    const memory = result.memory;
    const relevance = Math.max(0, ...result.strategy_details.map((detail) => detail.relevance));
    const age = Math.max(0, nowUs - memory.created_at);
    const recency = Math.min(1, Math.max(0, 1 - age / MAX_AGE_US));
    const recalls = Math.max(0, memory.access_count - 1);
    const reinforcement = Math.min(1, Math.log2(1 + recalls) / Math.log2(1 + REINFORCEMENT_CAP));
    return {
        relevance: weights.w_relevance * Math.min(1, relevance),
        recency: weights.w_recency * recency,
        importance: weights.w_importance * memory.importance,
        reinforcement: weights.w_reinforcement * reinforcement,
    };
}

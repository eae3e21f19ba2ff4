/**
 * The composite score broken into its four weighted signals: the engine reports each signal
 * of a result in its `scores` (`crates/hebbs-core/src/recall/scoring.rs` combines them), and
 * the explorer only weighs them.
 */

import type { RecallResultJson, WeightsJson } from './api.js';

export const SIGNALS = ['relevance', 'recency', 'importance', 'reinforcement'] as const;
export type Signal = (typeof SIGNALS)[number];

/** Each signal's weighted part of `result`'s score: the signals the engine combined
 * (`result.scores`), each times its weight, so the parts add up to the score. */
export function breakdown(result: RecallResultJson, weights: WeightsJson): Record<Signal, number> {
  const part = (signal: Signal): number =>
    weights[`w_${signal}`] * Math.max(0, result.scores[signal] ?? 0);
  return {
    relevance: part('relevance'),
    recency: part('recency'),
    importance: part('importance'),
    reinforcement: part('reinforcement'),
  };
}

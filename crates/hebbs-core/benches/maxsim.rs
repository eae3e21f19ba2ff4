//! The late-interaction kernel alone, as the re-rank stage runs it for one query: 750
//! memories (a head of 150 and its conversation neighbours) of 28 tokens, 10 cue tokens,
//! 384-d, single-threaded. Each round times the int8 x int8 kernel (`best_matches`) and, back
//! to back so both see the same machine load (the development machine is shared), the float
//! baseline it replaced in spirit: the codes widened to f32 and every cue token matched with
//! the vector index's `dot`. Prints the fastest and the median round of each and their ratio.
//! Run with `cargo bench -p hebbs-core --bench maxsim`.

use std::hint::black_box;
use std::time::Instant;

use hebbs_core::index::vector::dot;
use hebbs_core::recall::rerank::{best_matches, CueCodes};
use hebbs_core::TokenVectors;

const DIMENSION: usize = 384;
const MEMORIES: usize = 750;
const TOKENS: usize = 28;
const CUE_TOKENS: usize = 10;
const ROUNDS: usize = 60;

/// Deterministic values in [-1, 1] (xorshift).
fn values(state: &mut u64, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            (*state % 2001) as f32 / 1000.0 - 1.0
        })
        .collect()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let mut state = 7u64;
    let cue: Vec<Vec<f32>> = (0..CUE_TOKENS)
        .map(|_| values(&mut state, DIMENSION))
        .collect();
    let documents: Vec<TokenVectors> = (0..MEMORIES)
        .map(|_| {
            let rows: Vec<Vec<f32>> = (0..TOKENS).map(|_| values(&mut state, DIMENSION)).collect();
            let codes = CueCodes::quantize(&rows);
            TokenVectors {
                dimension: DIMENSION,
                codes: codes.codes,
                scales: codes.scales,
            }
        })
        .collect();
    let units: Vec<Vec<f32>> = cue
        .iter()
        .map(|token| {
            let norm = token.iter().map(|v| v * v).sum::<f32>().sqrt();
            token.iter().map(|v| v / norm).collect()
        })
        .collect();
    let (mut int8, mut float) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let query = CueCodes::quantize(&cue);
        for document in &documents {
            black_box(best_matches(&query, &document.view()));
        }
        int8.push(started.elapsed().as_secs_f64() * 1e3);
        let started = Instant::now();
        for document in &documents {
            let widened: Vec<f32> = document.codes.iter().map(|c| f32::from(*c)).collect();
            let mut best = vec![f32::NEG_INFINITY; CUE_TOKENS];
            for (row, scale) in widened.chunks_exact(DIMENSION).zip(&document.scales) {
                for (slot, token) in best.iter_mut().zip(&units) {
                    *slot = slot.max(dot(token, row) * scale);
                }
            }
            black_box(best);
        }
        float.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let fastest = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (int8_min, float_min) = (fastest(&int8), fastest(&float));
    let (int8_p50, float_p50) = (median(&mut int8), median(&mut float));
    println!("| kernel ({MEMORIES} memories x {TOKENS} tokens, {CUE_TOKENS} cue tokens, {DIMENSION}-d) | fastest ms | p50 ms | float / this (p50) |");
    println!("| :--- | ---: | ---: | ---: |");
    println!(
        "| f32: widen the codes, `dot` per cue token | {float_min:.2} | {float_p50:.2} | 1.00 |"
    );
    println!(
        "| int8 x int8, i32 accumulation (`best_matches`) | {int8_min:.2} | {int8_p50:.2} | {:.2} |",
        float_p50 / int8_p50
    );
}

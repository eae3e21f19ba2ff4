//! The vector index's distance kernels alone, on rows read in random order as a graph walk
//! reads them: the `f32` dot product (`dot`) and the int8 codes' (`int8_dot`), 384-d, over a
//! table of `ROWS` rows of each format (588 MB of `f32`, beyond any cache, and 147 MB of codes)
//! and over `HOT_ROWS` that stay in cache. Each round times the same random rows in both
//! formats back to back, so both see the same machine load (the development machine is
//! shared). Prints the fastest and the median round of each, in ns a row, and their ratio.
//! Run with `cargo bench -p hebbs-core --bench row_kernels`.

use std::hint::black_box;
use std::time::Instant;

use hebbs_core::index::vector::{dot, int8_dot};

const DIMENSION: usize = 384;
const ROWS: usize = 400_000;
const HOT_ROWS: usize = 500;
const READS: usize = 200_000;
const ROUNDS: usize = 15;

/// Deterministic numbers (xorshift).
fn numbers(state: &mut u64, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            *state
        })
        .collect()
}

/// ns a row of each kernel over the rows `order` names, f32 then int8.
fn round(f32s: &[f32], codes: &[i8], order: &[usize]) -> (f64, f64) {
    let (query, query_codes) = (&f32s[..DIMENSION], &codes[..DIMENSION]);
    let started = Instant::now();
    let mut sum = 0.0f32;
    for row in order {
        sum += dot(query, &f32s[row * DIMENSION..(row + 1) * DIMENSION]);
    }
    black_box(sum);
    let f32_ns = started.elapsed().as_nanos() as f64 / order.len() as f64;
    let started = Instant::now();
    let mut sum = 0i64;
    for row in order {
        sum += i64::from(int8_dot(
            query_codes,
            &codes[row * DIMENSION..(row + 1) * DIMENSION],
        ));
    }
    black_box(sum);
    let int8_ns = started.elapsed().as_nanos() as f64 / order.len() as f64;
    (f32_ns, int8_ns)
}

/// The fastest and the median of `values`.
fn fastest_and_median(mut values: Vec<f64>) -> (f64, f64) {
    values.sort_by(f64::total_cmp);
    (values[0], values[values.len() / 2])
}

fn report(label: &str, rounds: &[(f64, f64)]) {
    let (f32_best, f32_median) = fastest_and_median(rounds.iter().map(|r| r.0).collect());
    let (int8_best, int8_median) = fastest_and_median(rounds.iter().map(|r| r.1).collect());
    println!(
        "| {label} | {f32_best:.0} / {f32_median:.0} | {int8_best:.0} / {int8_median:.0} | {:.2} |",
        f32_median / int8_median
    );
}

fn main() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let f32s: Vec<f32> = numbers(&mut state, ROWS * DIMENSION)
        .into_iter()
        .map(|n| (n % 2001) as f32 / 1000.0 - 1.0)
        .collect();
    let codes: Vec<i8> = numbers(&mut state, ROWS * DIMENSION)
        .into_iter()
        .map(|n| (n % 255) as i8 - 127)
        .collect();
    println!("ns a row, fastest / median of {ROUNDS} rounds, {DIMENSION}-d");
    println!("| rows | f32 `dot` | int8 `int8_dot` | f32 / int8 |");
    println!("|---|---:|---:|---:|");
    for (label, table) in [
        (format!("{ROWS} (beyond cache)"), ROWS),
        (format!("{HOT_ROWS} (in cache)"), HOT_ROWS),
    ] {
        let order: Vec<usize> = numbers(&mut state, READS)
            .into_iter()
            .map(|n| (n % table as u64) as usize)
            .collect();
        let rounds: Vec<(f64, f64)> = (0..ROUNDS).map(|_| round(&f32s, &codes, &order)).collect();
        report(&label, &rounds);
    }
}

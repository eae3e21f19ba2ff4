//! The engine's own work around the HNSW search, measured query by query: each round runs the
//! index search and then the full similarity recall of the same query, back to back, so all see the same machine load (the
//! development machine is shared), and prints the p50 of each and of the recall's difference
//! from the index search, at ef 50 and ef 10. Same data as the `engine` bench.
//! Run with `cargo bench -p hebbs-core --bench recall_overhead`.

use std::hint::black_box;
use std::time::Instant;

use hebbs_core::recall::RecallRequest;

mod common;

/// Recalls before measuring, so the scoring cache is warm as in a long-running process.
const WARM_UP: usize = 1000;
/// Measured query pairs per `ef`.
const PAIRS: usize = 5000;

fn percentile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * q) as usize]
}

fn main() {
    let loaded = common::load();
    let request = |query: &Vec<f32>, ef: usize| RecallRequest {
        ef_search: Some(ef),
        ..RecallRequest::similarity(query.clone())
    };
    println!(
        "| ef | search p50 us | recall p50 us | recall - search p50 / p99 us | recall / search |"
    );
    println!("|---|---:|---:|---:|---:|");
    for ef in [50, 10] {
        for query in loaded.queries.iter().cycle().take(WARM_UP) {
            black_box(loaded.engine.recall(&request(query, ef)).expect("recall"));
        }
        let (mut search, mut recall, mut gap) = (Vec::new(), Vec::new(), Vec::new());
        for query in loaded.queries.iter().cycle().take(PAIRS) {
            let request = request(query, ef);
            let start = Instant::now();
            black_box(loaded.index.search(query, request.top_k, Some(ef), None));
            let searched = Instant::now();
            black_box(loaded.engine.recall(&request).expect("recall"));
            let recalled = Instant::now();
            let s = (searched - start).as_secs_f64() * 1e6;
            let r = (recalled - searched).as_secs_f64() * 1e6;
            search.push(s);
            recall.push(r);
            gap.push(r - s);
        }
        let (s, r) = (percentile(&mut search, 0.5), percentile(&mut recall, 0.5));
        println!(
            "| {ef} | {s:.1} | {r:.1} | {:.1} / {:.1} | {:.2} |",
            percentile(&mut gap, 0.5),
            percentile(&mut gap, 0.99),
            r / s
        );
    }
}

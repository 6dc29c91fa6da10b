//! Parallel batch checks ([`crate::pool`], rayon when the pool is taken). Callers release the
//! GIL around these.
use crate::contract::Contract;
use crate::error::InputError;
use crate::observation::Observation;

/// Below this many bytes in total a batch runs on the calling thread: waking rayon workers costs
/// more than checking a few small documents (measured: 8 × 192 B took 7.7 µs/doc in parallel
/// against 2.8 µs/doc sequentially on the 2-core VM).
pub const PARALLEL_MIN_BYTES: usize = 32 * 1024;

/// The least bytes of documents a thread claims at once (the pool claims a share of what is left,
/// down to this: a run of small documents then takes a few µs, so the threads end a batch within
/// a few µs of each other).
pub const TASK_BYTES: usize = 2 * 1024;

/// How to split a batch of `n` documents of `total_bytes`: `None` = run it on the calling thread,
/// `Some(k)` = in parallel in chunks of `k` documents.
pub fn grouping(n: usize, total_bytes: usize) -> Option<usize> {
    if n < 2 || total_bytes < PARALLEL_MIN_BYTES {
        return None;
    }
    let avg = (total_bytes / n).max(1);
    Some((TASK_BYTES / avg).clamp(1, n))
}

/// Check many ActionResult JSON documents against one contract, in parallel.
pub fn check_many<'c, T: AsRef<[u8]> + Sync>(contract: &'c Contract, docs: &[T], soft: Option<f64>)
    -> Vec<Result<Observation<'c>, InputError>> {
    let total: usize = docs.iter().map(|d| d.as_ref().len()).sum();
    match grouping(docs.len(), total) {
        None => docs.iter().map(|d| contract.check_bytes(d.as_ref(), soft)).collect(),
        Some(chunk) => crate::pool::par_map(docs, chunk, |d| contract.check_bytes(d.as_ref(), soft)),
    }
}

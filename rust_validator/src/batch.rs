//! Parallel batch checks (rayon). Callers release the GIL around these.
use rayon::prelude::*;

use crate::contract::Contract;
use crate::error::InputError;
use crate::observation::Observation;

/// Below this many items a batch runs on the calling thread (rayon's overhead would dominate).
pub const PARALLEL_MIN: usize = 8;

/// Check many ActionResult JSON documents against one contract, in parallel.
pub fn check_many<'c, T: AsRef<[u8]> + Sync>(contract: &'c Contract, docs: &[T], soft: Option<f64>)
    -> Vec<Result<Observation<'c>, InputError>> {
    if docs.len() < PARALLEL_MIN {
        return docs.iter().map(|d| contract.check_bytes(d.as_ref(), soft)).collect();
    }
    docs.par_iter().with_min_len(4).map(|d| contract.check_bytes(d.as_ref(), soft)).collect()
}

//! Who runs a step's parallel loops: the calling thread alone, or the
//! threads of the rayon pool with it.
//!
//! Every parallel loop of a step cuts its work into chunks of a fixed size
//! and each chunk's result depends only on its input, so the answer is the
//! same bits however the chunks are shared out. The choice here changes only
//! the time: handing chunks to another thread wakes it (a system call, tens
//! of microseconds on a virtual machine), and a small step is over before
//! that pays off.

/// Shapes below which a step runs on the calling thread alone. Measured on
/// circle piles stepped on a two-thread pool: sharing the loops made a pile
/// of 7,000 circles 13 % slower than running them on the calling thread,
/// and one of 9,000 10 % faster. Around this size the solver, the largest
/// phase, starts to split its passes too (see `SMALL_STEP_BATCHES`).
const POOL_MIN_SHAPES: usize = 8_192;

/// Who runs a step's parallel loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Threading {
    /// Every loop runs on the calling thread; no work is handed to rayon's
    /// threads.
    Calling,
    /// Loops are split among the threads of the current rayon pool.
    Pool,
}

impl Threading {
    /// The threading of a step over `shapes` shapes, called from a pool of
    /// `threads` threads (or from outside rayon, with a global pool of that
    /// many). A pool of one thread has no one to share with.
    pub fn for_step(shapes: usize, threads: usize) -> Threading {
        if shapes < POOL_MIN_SHAPES || threads < 2 {
            Threading::Calling
        } else {
            Threading::Pool
        }
    }

    /// The fewest items a parallel loop may give one task (rayon's
    /// `with_min_len`). On the calling thread that is all of them: rayon
    /// then runs the loop where it is called, without waking any worker.
    pub fn min_len(self) -> usize {
        match self {
            Threading::Calling => usize::MAX,
            Threading::Pool => 1,
        }
    }
}

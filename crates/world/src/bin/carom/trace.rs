//! `--trace FILE.csv`: the state of every moving body, step by step.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use carom::{BodyKind, World};

use crate::failure::Failure;
use crate::output::time_of;

const HEADER: &str = "step,time,index,x,y,angle,vx,vy,angular_velocity";

/// A CSV file receiving one row per non-static body at step 0, every
/// `every`-th step and the final step.
pub struct Trace {
    out: BufWriter<File>,
    path: PathBuf,
    every: u64,
}

impl Trace {
    /// Creates the file and writes the header.
    pub fn create(path: &Path, every: u64) -> Result<Trace, Failure> {
        let file = File::create(path).map_err(|e| {
            Failure::Runtime(format!("cannot create the trace {}: {e}", path.display()))
        })?;
        let mut trace = Trace {
            out: BufWriter::new(file),
            path: path.to_path_buf(),
            every,
        };
        writeln!(trace.out, "{HEADER}").map_err(|e| trace.failure(e))?;
        Ok(trace)
    }

    /// Records the world if its step is due: a multiple of `every`, or
    /// `last`. Step 0 is a multiple of everything.
    pub fn record_if_due(&mut self, world: &World, last: u64) -> Result<(), Failure> {
        let step = world.step_count();
        if step % self.every == 0 || step == last {
            self.record(world).map_err(|e| self.failure(e))?;
        }
        Ok(())
    }

    /// Flushes the rows to the file.
    pub fn finish(mut self) -> Result<(), Failure> {
        self.out.flush().map_err(|e| self.failure(e))
    }

    fn record(&mut self, world: &World) -> std::io::Result<()> {
        let step = world.step_count();
        let time = time_of(world);
        for body in world.bodies().filter(|b| b.kind() != BodyKind::Static) {
            let p = body.position();
            let v = body.linear_velocity();
            writeln!(
                self.out,
                "{step},{time},{},{},{},{},{},{},{}",
                body.index(),
                p.x,
                p.y,
                body.angle(),
                v.x,
                v.y,
                body.angular_velocity()
            )?;
        }
        Ok(())
    }

    fn failure(&self, error: std::io::Error) -> Failure {
        Failure::writing(&format!("the trace {}", self.path.display()), error)
    }
}

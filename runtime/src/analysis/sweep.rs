//! Sweeps beyond one machine: a serializable [`Job`] (the members of a parameter sweep or Monte
//! Carlo study, a seed per member, the options), run in shards that stream one JSON line per
//! member as it finishes, resume where they stopped, and merge back into the job's order — with
//! the same results, bit for bit, as the whole job run in one process through
//! [`ensemble`].
//!
//! * [`Job::new`] numbers the members and derives each one's seed from the job's seed and its
//!   index alone (SplitMix64), so a member computes the same thing whichever shard, machine or
//!   order runs it. Write the job once (`serde_json::to_writer`) and give every worker the file.
//! * [`Job::run_shard`] runs the members `i` with `i % count == index` of [`Shard`] `index/count`
//!   on the local cores and appends one [`Outcome`] line per member to the shard's file as each
//!   finishes (its result, or the typed error of a failed run: a failure is data, not a lost
//!   shard). The file starts with a header line naming the job and the shard; run again on the
//!   same file it checks the header, drops a last line cut short by a crash, and runs only the
//!   members not yet written.
//! * [`merge`] reads the shard files, checks they belong to one job and cover every member once,
//!   and returns the outcomes in member order; [`Job::run_in_process`] is the same job on one
//!   machine.
//!
//! A shard's file belongs to one process at a time (one array task per shard; nothing locks it).
//! Results are written with serde_json: the runtime's own result types (trajectories, orbits,
//! branches) write NaN and ±∞ by name and read them back, but a bare `f64` in a result type of
//! your own is written as `null` when it is not finite, and does not read back as a number — wrap
//! such values, or return a runtime type.
//!
//! On a cluster, one array task per shard: with Slurm, `sbatch --array=0-15` and
//! `--shard $SLURM_ARRAY_TASK_ID/16`; `examples/sweep.rs` and `scripts/sweep.slurm` show the whole
//! cycle.
//!
//! ```
//! use routh_runtime::sweep::{Job, Shard, merge};
//! use routh_runtime::{Options, SimError};
//!
//! // x' = −k x from x(0) = 1 for ten decay rates: x(1) = e^{−k}.
//! let job = Job::new("decay", Options::default(), (1..=10).map(|k| k as f64), 42);
//! let run = |k: &f64, _: &Options, _seed: u64| -> Result<f64, SimError> { Ok((-k).exp()) };
//! let dir = std::env::temp_dir().join(format!("routh-sweep-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let files: Vec<_> = (0..3).map(|i| dir.join(format!("shard-{i}.jsonl"))).collect();
//! for (i, file) in files.iter().enumerate() {
//!     let report = job.run_shard(Shard::new(i, 3)?, file, run, &Default::default())?;
//!     assert_eq!(report.written + report.skipped, job.shard(Shard::new(i, 3)?).count());
//! }
//! let outcomes = merge::<f64>(&files)?;
//! assert_eq!(outcomes.len(), 10);
//! assert_eq!(outcomes[3].result, Ok((-4f64).exp()));
//! std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::analysis::ensemble::{EnsembleOptions, ensemble};
use crate::error::SimError;
use crate::provenance::VERSION;

/// The work of a sweep: its members (anything serializable: parameters, an initial state, both)
/// with their indices and seeds, and the options every member runs with.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Job<M, O> {
    /// The job's name, written in every shard's header (shards of different jobs do not merge).
    pub name: String,
    /// The options of every run.
    pub options: O,
    /// The members, in order.
    pub members: Vec<Member<M>>,
}

/// One member of a [`Job`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Member<M> {
    /// Its position in the job.
    pub index: usize,
    /// Its seed (for random initial conditions, noise, …), a function of the job's seed and
    /// [`Member::index`] only.
    pub seed: u64,
    /// What it runs.
    pub spec: M,
}

/// Shard `index` of `count`: the members whose index is `index` modulo `count` (interleaved, so
/// that members that grow in cost along the job spread over the shards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// Which shard, `0..count`.
    pub index: usize,
    /// How many shards.
    pub count: usize,
}

impl Shard {
    /// Shard `index` of `count`.
    ///
    /// # Errors
    /// [`SimError::InvalidArgument`] unless `index < count`.
    pub fn new(index: usize, count: usize) -> Result<Shard, SimError> {
        if index < count {
            Ok(Shard { index, count })
        } else {
            Err(SimError::InvalidArgument(format!("shard {index} of {count}: the index must lie in 0..{count}")))
        }
    }

    /// Reads `"i/N"` (as a scheduler's array index and size give it).
    ///
    /// # Errors
    /// [`SimError::InvalidArgument`] for anything else, or `i ≥ N`.
    pub fn parse(text: &str) -> Result<Shard, SimError> {
        let bad = || SimError::InvalidArgument(format!("a shard is written i/N, e.g. 3/16: not {text:?}"));
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        Shard::new(i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?)
    }

    /// The whole job as one shard.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    fn holds(self, member: usize) -> bool {
        member % self.count == self.index
    }
}

/// What one member gave: its index and seed with its result or the typed error of its run (a run
/// that panicked is [`SimError::Panicked`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Outcome<R> {
    /// The member's index in the job.
    pub index: usize,
    /// The member's seed.
    pub seed: u64,
    /// Its result.
    pub result: Result<R, SimError>,
}

/// The first line of a shard's file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Header {
    sweep: String,
    shard: Shard,
    members: usize,
    routh: String,
}

/// What [`Job::run_shard`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ShardReport {
    /// Members run and written now.
    pub written: usize,
    /// Members already in the file (a resumed shard).
    pub skipped: usize,
    /// Of those written now, the ones whose run failed (their errors are in the file).
    pub failed: usize,
}

/// Failure to run, resume or merge shards (a member's own failure is not one: it is recorded in
/// its [`Outcome`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// Reading or writing a shard's file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// A line of a shard's file is not what a shard writes.
    #[error("{path}, line {line}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// The line (from 1).
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// Files or headers that do not belong together: another job's or shard's file, shards that
    /// overlap or are missing, a member written twice.
    #[error("{0}")]
    Mismatch(String),
    /// The shards do not hold every member of the job.
    #[error("the shards hold {found} of {members} members; missing, e.g., {missing:?}")]
    Incomplete {
        /// Members found.
        found: usize,
        /// Members of the job.
        members: usize,
        /// The first missing indices (at most ten).
        missing: Vec<usize>,
    },
    /// The ensemble could not start (see [`ensemble`]).
    #[error(transparent)]
    Run(#[from] SimError),
}

/// The seed of member `index` of a job seeded with `seed` (SplitMix64's output function).
#[must_use]
pub fn member_seed(seed: u64, index: usize) -> u64 {
    let mut z = seed.wrapping_add((index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<M, O> Job<M, O> {
    /// A job of `specs`, numbered in order, member `i` seeded with [`member_seed`]`(seed, i)`.
    pub fn new(name: impl Into<String>, options: O, specs: impl IntoIterator<Item = M>, seed: u64) -> Self {
        let members =
            specs.into_iter().enumerate().map(|(index, spec)| Member { index, seed: member_seed(seed, index), spec }).collect();
        Job { name: name.into(), options, members }
    }

    /// Writes the job as JSON to `path` (what every worker reads with [`Job::load`]).
    ///
    /// # Errors
    /// [`SweepError::Io`], or [`SweepError::Format`] if a member or the options do not serialize.
    pub fn save(&self, path: &Path) -> Result<(), SweepError>
    where
        M: Serialize,
        O: Serialize,
    {
        let text = serde_json::to_string_pretty(self).map_err(|e| format_error(path, 1, &e))?;
        std::fs::write(path, text + "\n").map_err(io_error(path))
    }

    /// Reads a job written by [`Job::save`].
    ///
    /// # Errors
    /// [`SweepError::Io`], or [`SweepError::Format`] if the file is not such a job.
    pub fn load(path: &Path) -> Result<Self, SweepError>
    where
        M: DeserializeOwned,
        O: DeserializeOwned,
    {
        let text = std::fs::read_to_string(path).map_err(io_error(path))?;
        serde_json::from_str(&text).map_err(|e| format_error(path, e.line(), &e))
    }

    /// The members of `shard`, in order.
    pub fn shard(&self, shard: Shard) -> impl Iterator<Item = &Member<M>> {
        self.members.iter().filter(move |m| shard.holds(m.index))
    }

    /// Runs every member on this machine's cores (through [`ensemble`]) and returns the outcomes
    /// in member order: what [`merge`] returns for the shards of the same job.
    ///
    /// # Errors
    /// As [`ensemble`].
    pub fn run_in_process<R, F>(&self, run: F, ensemble_options: &EnsembleOptions) -> Result<Vec<Outcome<R>>, SimError>
    where
        M: Sync,
        O: Sync,
        R: Send,
        F: Fn(&M, &O, u64) -> Result<R, SimError> + Sync + Send,
    {
        let results = ensemble(&self.members, |_, m| run(&m.spec, &self.options, m.seed), ensemble_options)?;
        Ok(self
            .members
            .iter()
            .zip(results)
            .map(|(m, r)| Outcome { index: m.index, seed: m.seed, result: r.and_then(|r| r) })
            .collect())
    }

    /// Runs the members of `shard` not yet in `path` on this machine's cores, appending one
    /// [`Outcome`] line per member to `path` as each finishes (flushed at once: a crash loses at
    /// most the members running). A new file gets a header line (the job's name, the shard, the
    /// number of members, routh's version); an existing one must carry this job's and shard's
    /// header, and a last line cut short is dropped before the shard resumes.
    ///
    /// # Errors
    /// [`SweepError::Io`] and [`SweepError::Format`] for the file, [`SweepError::Mismatch`] for
    /// another job's or shard's file (nothing is written then), [`SweepError::Run`] if the
    /// ensemble cannot start.
    pub fn run_shard<R, F>(
        &self,
        shard: Shard,
        path: &Path,
        run: F,
        ensemble_options: &EnsembleOptions,
    ) -> Result<ShardReport, SweepError>
    where
        M: Sync,
        O: Sync,
        R: Serialize + Send,
        F: Fn(&M, &O, u64) -> Result<R, SimError> + Sync + Send,
    {
        let io = io_error(path);
        let header = Header { sweep: self.name.clone(), shard, members: self.members.len(), routh: VERSION.to_owned() };
        let mut done = vec![false; self.members.len()];
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path).map_err(io)?;
        let existing = read_shard(path, &mut file)?;
        match existing {
            None => {
                let mut line = serde_json::to_string(&header).map_err(|e| format_error(path, 1, &e))?;
                line.push('\n');
                file.write_all(line.as_bytes()).and_then(|()| file.flush()).map_err(io)?;
            }
            Some((found, indices)) => {
                if found.sweep != header.sweep || found.shard != header.shard || found.members != header.members {
                    return Err(SweepError::Mismatch(format!(
                        "{} holds shard {}/{} of {:?} ({} members), not shard {}/{} of {:?} ({} members)",
                        path.display(),
                        found.shard.index,
                        found.shard.count,
                        found.sweep,
                        found.members,
                        shard.index,
                        shard.count,
                        header.sweep,
                        header.members
                    )));
                }
                for i in indices {
                    if i >= done.len() || !shard.holds(i) {
                        return Err(SweepError::Mismatch(format!(
                            "{} holds member {i}, not of shard {}/{}",
                            path.display(),
                            shard.index,
                            shard.count
                        )));
                    }
                    done[i] = true;
                }
            }
        }
        let skipped = done.iter().filter(|d| **d).count();
        let todo: Vec<&Member<M>> = self.shard(shard).filter(|m| !done[m.index]).collect();
        let sink = Mutex::new((file, None::<std::io::Error>, 0usize));
        let entries = ensemble(
            &todo,
            |_, m| {
                // A member that panics is recorded as that member's `Panicked` failure, like the
                // in-process ensemble's entry: its line is written and counted.
                let result = crate::analysis::ensemble::caught(m.index, || run(&m.spec, &self.options, m.seed)).and_then(|r| r);
                let mut failed = result.is_err();
                let outcome = Outcome { index: m.index, seed: m.seed, result };
                let mut line = serde_json::to_string(&outcome).unwrap_or_else(|e| {
                    failed = true;
                    // A result that cannot be written (a map with non-string keys, say) is
                    // recorded as that member's failure.
                    let failure: Outcome<()> =
                        Outcome { index: m.index, seed: m.seed, result: Err(SimError::NotSerializable(e.to_string())) };
                    serde_json::to_string(&failure).unwrap_or_default()
                });
                line.push('\n');
                let mut guard = sink.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let (file, error, failures) = &mut *guard;
                if error.is_none()
                    && let Err(e) = file.write_all(line.as_bytes()).and_then(|()| file.flush())
                {
                    *error = Some(e);
                }
                *failures += usize::from(failed);
            },
            ensemble_options,
        )?;
        // A panic outside the member's run (writing its line) leaves no line: not written.
        let lost = entries.iter().filter(|e| e.is_err()).count();
        let (_, error, failed) = sink.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(e) = error {
            return Err(io(e));
        }
        Ok(ShardReport { written: todo.len() - lost, skipped, failed })
    }
}

/// Turns an I/O failure on `path` into [`SweepError::Io`].
fn io_error(path: &Path) -> impl Fn(std::io::Error) -> SweepError + Copy + '_ {
    move |source| SweepError::Io { path: path.to_owned(), source }
}

fn format_error(path: &Path, line: usize, e: &dyn std::fmt::Display) -> SweepError {
    SweepError::Format { path: path.to_owned(), line, message: e.to_string() }
}

/// The header and the members' indices of a shard file opened for reading and appending (`None`
/// if it is empty); a last line without its newline (a write cut short) is cut off the file.
fn read_shard(path: &Path, file: &mut File) -> Result<Option<(Header, Vec<usize>)>, SweepError> {
    #[derive(serde::Deserialize)]
    struct Index {
        index: usize,
    }
    let io = io_error(path);
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut reader = BufReader::new(&mut *file);
    let mut header = None;
    let mut indices = Vec::new();
    let mut complete = 0u64;
    let mut line = String::new();
    for number in 1.. {
        line.clear();
        let n = reader.read_line(&mut line).map_err(io)?;
        if n == 0 {
            break;
        }
        if !line.ends_with('\n') {
            // Cut short by a crash: dropped (the member runs again).
            break;
        }
        if number == 1 {
            header = Some(serde_json::from_str::<Header>(&line).map_err(|e| format_error(path, number, &e))?);
        } else {
            indices.push(serde_json::from_str::<Index>(&line).map_err(|e| format_error(path, number, &e))?.index);
        }
        complete += n as u64;
    }
    drop(reader);
    file.set_len(complete).map_err(io)?;
    Ok(header.map(|h| (h, indices)))
}

/// Reads the shard files of one job (in any order) and returns every member's outcome in member
/// order.
///
/// # Errors
/// [`SweepError::Io`] and [`SweepError::Format`] for the files; [`SweepError::Mismatch`] for
/// files of different jobs or shard counts, a shard given twice, or a member written twice;
/// [`SweepError::Incomplete`] when members are missing (a shard not given, or not finished);
/// [`SweepError::Mismatch`] too when no file has a header (none given, or only empty ones).
pub fn merge<R: DeserializeOwned>(paths: &[impl AsRef<Path>]) -> Result<Vec<Outcome<R>>, SweepError> {
    let mut job: Option<Header> = None;
    let mut shards = Vec::new();
    let mut outcomes: Vec<Option<Outcome<R>>> = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let io = io_error(path);
        let reader = BufReader::new(File::open(path).map_err(io)?);
        for (k, line) in reader.lines().enumerate() {
            let line = line.map_err(io)?;
            if k == 0 {
                let header: Header = serde_json::from_str(&line).map_err(|e| format_error(path, 1, &e))?;
                match &job {
                    None => {
                        outcomes = (0..header.members).map(|_| None).collect();
                        job = Some(header.clone());
                    }
                    Some(j) if j.sweep != header.sweep || j.members != header.members || j.shard.count != header.shard.count => {
                        return Err(SweepError::Mismatch(format!(
                            "{} is shard {}/{} of {:?} ({} members); the first file's job is {:?} in {} shards ({} members)",
                            path.display(),
                            header.shard.index,
                            header.shard.count,
                            header.sweep,
                            header.members,
                            j.sweep,
                            j.shard.count,
                            j.members
                        )));
                    }
                    Some(_) => {}
                }
                if shards.contains(&header.shard.index) {
                    return Err(SweepError::Mismatch(format!("shard {} is given twice", header.shard.index)));
                }
                shards.push(header.shard.index);
                continue;
            }
            let outcome: Outcome<R> = serde_json::from_str(&line).map_err(|e| format_error(path, k + 1, &e))?;
            let slot = outcomes.get_mut(outcome.index).ok_or_else(|| {
                SweepError::Mismatch(format!(
                    "{} holds member {} of a job of {} members",
                    path.display(),
                    outcome.index,
                    job.as_ref().map_or(0, |j| j.members)
                ))
            })?;
            if slot.is_some() {
                return Err(SweepError::Mismatch(format!("member {} is written twice", outcome.index)));
            }
            *slot = Some(outcome);
        }
    }
    if job.is_none() {
        return Err(SweepError::Mismatch("no shard file with a header was given: nothing to merge".into()));
    }
    let members = outcomes.len();
    let found = outcomes.iter().filter(|o| o.is_some()).count();
    if found < members {
        let missing = outcomes.iter().enumerate().filter(|(_, o)| o.is_none()).map(|(i, _)| i).take(10).collect();
        return Err(SweepError::Incomplete { found, members, missing });
    }
    Ok(outcomes.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("routh-sweep-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A member whose result depends on its spec and its seed, and which fails for one spec.
    fn run(spec: &f64, scale: &f64, seed: u64) -> Result<[f64; 2], SimError> {
        if *spec == 13.0 {
            return Err(SimError::InvalidParameter { name: "spec", value: *spec, reason: "thirteen" });
        }
        Ok([(spec * scale).sin() / 3.0, (seed >> 11) as f64 / (1u64 << 53) as f64])
    }

    #[test]
    fn shards_merge_into_the_in_process_run_bit_for_bit_and_resume_where_they_stopped() {
        let job = Job::new("sines", 0.7, (0..50).map(f64::from), 9);
        let quiet = EnsembleOptions::default().progress(false);
        let whole = job.run_in_process(run, &quiet).unwrap();
        assert!(matches!(whole[13].result, Err(SimError::InvalidParameter { .. })));
        let d = dir("merge");
        let files: Vec<PathBuf> = (0..4).map(|i| d.join(format!("{i}.jsonl"))).collect();
        for (i, f) in files.iter().enumerate() {
            let report = job.run_shard(Shard::new(i, 4).unwrap(), f, run, &quiet).unwrap();
            assert_eq!((report.written, report.skipped), (job.shard(Shard::new(i, 4).unwrap()).count(), 0));
            assert_eq!(report.failed, usize::from(i == 13 % 4));
        }
        let merged: Vec<Outcome<[f64; 2]>> = merge(&files).unwrap();
        let bits = |o: &[Outcome<[f64; 2]>]| {
            o.iter().map(|o| (o.index, o.seed, o.result.as_ref().map(|r| r.map(f64::to_bits)).ok())).collect::<Vec<_>>()
        };
        assert_eq!(bits(&merged), bits(&whole));
        assert_eq!(merged[13], whole[13]);

        // A crash: shard 1 lost its last two members and the next one was half written.
        let text = std::fs::read_to_string(&files[1]).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let kept = lines[..lines.len() - 2].join("\n") + "\n" + &lines[lines.len() - 2][..7];
        std::fs::write(&files[1], kept).unwrap();
        assert!(matches!(merge::<[f64; 2]>(&files), Err(SweepError::Format { .. })));
        let report = job.run_shard(Shard::new(1, 4).unwrap(), &files[1], run, &quiet).unwrap();
        assert_eq!((report.written, report.skipped), (2, job.shard(Shard::new(1, 4).unwrap()).count() - 2));
        assert_eq!(bits(&merge(&files).unwrap()), bits(&whole));
        // Resuming a finished shard runs nothing.
        let report = job.run_shard(Shard::new(1, 4).unwrap(), &files[1], run, &quiet).unwrap();
        assert_eq!(report.written, 0);

        // Missing shards, another job's file, a shard given twice: errors, not a short result.
        assert!(
            matches!(merge::<[f64; 2]>(&files[..3]), Err(SweepError::Incomplete { found, members: 50, .. }) if found == 50 - 12)
        );
        let other = Job::new("other", 0.7, (0..50).map(f64::from), 9);
        assert!(matches!(other.run_shard(Shard::new(0, 4).unwrap(), &files[0], run, &quiet), Err(SweepError::Mismatch(_))));
        assert!(matches!(job.run_shard(Shard::new(0, 5).unwrap(), &files[0], run, &quiet), Err(SweepError::Mismatch(_))));
        assert!(matches!(merge::<[f64; 2]>(&[&files[0], &files[0]]), Err(SweepError::Mismatch(_))));
        // Nothing to merge is an error, not an empty result.
        assert!(matches!(merge::<[f64; 2]>(&[] as &[PathBuf]), Err(SweepError::Mismatch(_))));
        std::fs::write(d.join("empty.jsonl"), "").unwrap();
        assert!(matches!(merge::<[f64; 2]>(&[d.join("empty.jsonl")]), Err(SweepError::Mismatch(_))));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_result_that_does_not_serialize_is_that_members_typed_failure() {
        // JSON maps need string keys: a map keyed by pairs runs but cannot be written.
        let job = Job::new("maps", (), 0..3, 1);
        let d = dir("unserializable");
        let file = d.join("0.jsonl");
        let run = |spec: &i32, _: &(), _seed: u64| -> Result<std::collections::BTreeMap<(i32, i32), f64>, SimError> {
            Ok([((*spec, 1), 0.5)].into_iter().collect())
        };
        let quiet = EnsembleOptions::default().progress(false);
        let report = job.run_shard(Shard::new(0, 1).unwrap(), &file, run, &quiet).unwrap();
        assert_eq!((report.written, report.failed), (3, 3));
        let merged: Vec<Outcome<std::collections::BTreeMap<(i32, i32), f64>>> = merge(&[&file]).unwrap();
        assert_eq!(merged.len(), 3);
        for o in &merged {
            assert!(matches!(&o.result, Err(SimError::NotSerializable(why)) if why.contains("key")), "{:?}", o.result);
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A member whose run panics has its line, `Err(Panicked)` as in the in-process ensemble, and
    /// counts among the failures: the shard's report is true and `merge` finds every member.
    #[test]
    fn a_member_that_panics_is_written_as_that_members_failure() {
        let job = Job::new("panics", (), 0..7, 5);
        let d = dir("panics");
        let file = d.join("0.jsonl");
        let run = |spec: &i32, _: &(), _seed: u64| -> Result<f64, SimError> {
            assert!(*spec != 3, "member {spec} broke");
            Ok(f64::from(*spec).sqrt())
        };
        let quiet = EnsembleOptions::default().progress(false);
        let whole = job.run_in_process(run, &quiet).unwrap();
        let report = job.run_shard(Shard::new(0, 1).unwrap(), &file, run, &quiet).unwrap();
        assert_eq!((report.written, report.skipped, report.failed), (7, 0, 1));
        let merged: Vec<Outcome<f64>> = merge(&[&file]).unwrap();
        assert_eq!(merged.len(), 7);
        assert!(matches!(&merged[3].result, Err(SimError::Panicked { run: 3, message }) if message.contains("member 3 broke")));
        assert_eq!(merged, whole);
        // Resuming runs nothing: the panicked member is recorded, not missing.
        assert_eq!(job.run_shard(Shard::new(0, 1).unwrap(), &file, run, &quiet).unwrap().written, 0);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn jobs_and_seeds_do_not_depend_on_how_they_are_split() {
        let job = Job::new("seeds", (), 0..1000, 3);
        let d = dir("save");
        job.save(&d.join("job.json")).unwrap();
        assert_eq!(Job::<i32, ()>::load(&d.join("job.json")).unwrap(), job);
        assert!(matches!(Job::<String, ()>::load(&d.join("job.json")), Err(SweepError::Format { .. })));
        std::fs::remove_dir_all(&d).unwrap();
        let seeds: std::collections::HashSet<u64> = job.members.iter().map(|m| m.seed).collect();
        assert_eq!(seeds.len(), 1000);
        assert_eq!(Job::new("x", (), 0..10, 3).members[7].seed, job.members[7].seed);
        let mut all: Vec<usize> = (0..7).flat_map(|i| job.shard(Shard::new(i, 7).unwrap()).map(|m| m.index)).collect();
        all.sort_unstable();
        assert_eq!(all, (0..1000).collect::<Vec<_>>());
        assert_eq!(Shard::parse(" 3/16").unwrap(), Shard { index: 3, count: 16 });
        for bad in ["16/16", "3", "a/b", "-1/4"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}

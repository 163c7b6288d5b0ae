//! The result cache: an unchanged file's results without analysing it again.
//!
//! An entry is found by its key, the BLAKE3 hash of
//! * the racewatch executable itself (so a rebuilt tool, whose analyses may
//!   differ, never reads an older tool's entries; this also covers the
//!   built-in kernel models),
//! * the caller's description of the request (the file's clang arguments,
//!   every option that changes results, the contents of `--models`),
//! * the file's path (results name it) and contents.
//!
//! The analysis also reads headers, which the key cannot know beforehand:
//! each entry lists every file the parse read with its BLAKE3 hash, and a
//! lookup returns the entry only if all of them still hash the same. An
//! edited header, local or in the kernel tree, thus misses the cache, which
//! is what makes returning cached verdicts sound.
//!
//! Entries are JSON files under `DIR/xx/KEY.json`, written to a temporary
//! name and renamed, so a reader (another run, in parallel) sees a whole
//! entry or none. A damaged entry is a miss. Only results of a finished
//! analysis are stored; errors, timeouts and crashes are not, so they are
//! retried, nor are results a clock decided (`FileVerdicts::cacheable`).

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The directory holding the entries: `$RACEWATCH_CACHE/results`, else
/// `$XDG_CACHE_HOME/racewatch/results`, else `~/.cache/racewatch/results`.
pub fn default_dir() -> Option<PathBuf> {
    crate::frontend::flags::cache_root().map(|root| root.join("results"))
}

/// An open cache.
pub struct Cache {
    dir: PathBuf,
    tool: blake3::Hash,
    /// File hashes computed in this run, so the headers most files share
    /// are read once.
    hashes: Mutex<HashMap<PathBuf, Option<blake3::Hash>>>,
}

/// A cache key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key(blake3::Hash);

#[derive(Serialize, serde::Deserialize)]
struct Entry<R> {
    /// Every file the analysis read, with its hash in hex.
    inputs: Vec<(PathBuf, String)>,
    result: R,
}

impl Cache {
    /// Opens (creating) the cache in `dir`, identifying the tool by the
    /// hash of the running executable.
    pub fn open(dir: &Path) -> std::io::Result<Cache> {
        std::fs::create_dir_all(dir)?;
        let exe = std::env::current_exe()?;
        let tool = blake3::Hasher::new().update_reader(std::fs::File::open(exe)?)?.finalize();
        Ok(Cache { dir: dir.to_path_buf(), tool, hashes: Mutex::new(HashMap::new()) })
    }

    /// The key of `file` analysed as `request` describes, or `None` when
    /// the file cannot be read (the analysis will say why).
    pub fn key(&self, file: &Path, request: &[u8]) -> Option<Key> {
        let contents = self.hash_file(file)?;
        let mut h = blake3::Hasher::new();
        h.update(self.tool.as_bytes());
        // Lengths separate the variable-length parts.
        h.update(&(request.len() as u64).to_le_bytes());
        h.update(request);
        let path = file.as_os_str().as_encoded_bytes();
        h.update(&(path.len() as u64).to_le_bytes());
        h.update(path);
        h.update(contents.as_bytes());
        Some(Key(h.finalize()))
    }

    /// The stored result for `key`, if there is one and every file it was
    /// computed from is unchanged.
    pub fn load<R: DeserializeOwned>(&self, key: Key) -> Option<R> {
        let text = std::fs::read(self.path(key)).ok()?;
        let entry: Entry<R> = serde_json::from_slice(&text).ok()?;
        let unchanged = entry.inputs.iter().all(|(path, hash)| self.hash_file(path).is_some_and(|h| h.to_hex().as_str() == hash));
        unchanged.then_some(entry.result)
    }

    /// Stores `result` for `key`, computed from `inputs`. A failure to
    /// write only loses the entry.
    pub fn store<R: Serialize>(&self, key: Key, inputs: &[PathBuf], result: &R) {
        let mut hashed = Vec::with_capacity(inputs.len());
        for path in inputs {
            // A file that cannot be hashed now cannot be checked later.
            let Some(h) = self.hash_file(path) else { return };
            hashed.push((path.clone(), h.to_hex().to_string()));
        }
        let entry = Entry { inputs: hashed, result };
        let Ok(bytes) = serde_json::to_vec(&entry) else { return };
        let path = self.path(key);
        let _ = write_whole(&path, &bytes);
    }

    fn path(&self, key: Key) -> PathBuf {
        let hex = key.0.to_hex();
        self.dir.join(&hex[..2]).join(format!("{hex}.json"))
    }

    fn hash_file(&self, path: &Path) -> Option<blake3::Hash> {
        if let Some(known) = self.hashes.lock().ok().and_then(|m| m.get(path).copied()) {
            return known;
        }
        let hash = std::fs::File::open(path).ok().and_then(|f| blake3::Hasher::new().update_reader(f).ok().map(|h| h.finalize()));
        if let Ok(mut m) = self.hashes.lock() {
            m.insert(path.to_path_buf(), hash);
        }
        hash
    }
}

/// Writes `bytes` to a unique temporary file next to `path` and renames it
/// over `path`.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{}.{}.tmp", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(), std::process::id()));
    let result = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(bytes)).and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

//! Layered history packs (ARCHITECTURE §6): the Best states of many instances of one
//! repository share their common history as a few hardlinked packs instead of one full
//! history pack each.
//!
//! Bases are ordered into chains b0, b1, … where each base is an ancestor of the next.
//! The root pack holds b0's whole history, once. Position j ≥ 1 owns a segment pack
//! holding the objects reachable from bj but not from b(j − lowbit(j)) (a Fenwick tree
//! over the chain above its root), so a state at bp links the root plus the O(log p)
//! segments of p's binary decomposition, which together hold exactly its history. The
//! root history is stored once and each later layer O(log n) times in all.

use super::StatesError;
use crate::git::{self, HistoryPack};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One repository's chains of bases and the segment packs built so far.
#[derive(Debug)]
pub struct LayeredStore {
    repo: PathBuf,
    root: PathBuf,
    chains: Vec<Vec<String>>,
    built: HashMap<(usize, usize), HistoryPack>,
}

/// Lowest set bit of `i`, the length of the Fenwick segment ending at `i`.
fn lowbit(i: usize) -> usize {
    i & i.wrapping_neg()
}

/// The Fenwick segments (end positions, 1-based) whose union is the prefix `1..=i`.
pub fn decomposition(i: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut j = i;
    while j > 0 {
        out.push(j);
        j -= lowbit(j);
    }
    out
}

impl LayeredStore {
    /// Order `bases` (commit ids of `repo`) into ancestry chains, oldest first; segment
    /// packs go under `root` (one directory per segment, reused when already there).
    pub fn new(repo: &Path, root: &Path, bases: &[&str]) -> Result<Self, StatesError> {
        let mut timed: Vec<(i64, String)> = Vec::new();
        for b in bases {
            timed.push((git::commit_time(repo, b)?, (*b).to_string()));
        }
        timed.sort();
        timed.dedup_by(|a, b| a.1 == b.1);
        let mut chains: Vec<Vec<String>> = Vec::new();
        for (_, base) in timed {
            let mut placed = false;
            for chain in &mut chains {
                let last = chain.last().map(String::as_str).unwrap_or_default();
                if git::is_ancestor(repo, last, &base)? {
                    chain.push(base.clone());
                    placed = true;
                    break;
                }
            }
            if !placed {
                chains.push(vec![base]);
            }
        }
        Ok(LayeredStore {
            repo: repo.to_path_buf(),
            root: root.to_path_buf(),
            chains,
            built: HashMap::new(),
        })
    }

    /// Whether `base` is one of the store's bases.
    pub fn has(&self, base: &str) -> bool {
        self.chains.iter().any(|c| c.iter().any(|b| b == base))
    }

    /// The chains of base ids, each an ancestor of the next.
    pub fn chains(&self) -> &[Vec<String>] {
        &self.chains
    }

    /// The packs that together hold exactly the objects reachable from `base` (the
    /// chain's root, then the segments of its position's decomposition), packing the
    /// ones not built yet.
    pub fn packs_for(&mut self, base: &str) -> Result<Vec<HistoryPack>, StatesError> {
        let found = self
            .chains
            .iter()
            .enumerate()
            .find_map(|(c, chain)| chain.iter().position(|b| b == base).map(|p| (c, p)));
        let Some((c, p)) = found else {
            return Err(StatesError::Instance {
                instance: base.to_string(),
                what: "base commit not in the layered store".into(),
            });
        };
        let mut packs = vec![self.segment(c, 0)?];
        for j in decomposition(p) {
            packs.push(self.segment(c, j)?);
        }
        Ok(packs)
    }

    /// Segment `j` of chain `c`: the root's whole history for j = 0, else reachable from
    /// base j and not from base j − lowbit(j).
    fn segment(&mut self, c: usize, j: usize) -> Result<HistoryPack, StatesError> {
        if let Some(p) = self.built.get(&(c, j)) {
            return Ok(p.clone());
        }
        let chain = &self.chains[c];
        let tip = &chain[j];
        let exclude = (j > 0).then(|| chain[j - lowbit(j)].as_str());
        let short = |id: &str| id.chars().take(12).collect::<String>();
        let dir = self.root.join(format!(
            "{}-{}",
            short(tip),
            exclude.map(short).unwrap_or_else(|| "root".into())
        ));
        let pack = match existing_pack(&dir, tip) {
            Some(p) => p,
            None => {
                // Pack into a fresh sibling and rename, so a half-written segment is
                // never taken for a finished one.
                let tmp = self
                    .root
                    .join(format!(".tmp-{}-{}", std::process::id(), short(tip)));
                let _ = std::fs::remove_dir_all(&tmp);
                let p = git::pack_segment(&self.repo, tip, exclude, &tmp)?;
                std::fs::rename(&tmp, &dir).map_err(|e| StatesError::Path {
                    path: dir.clone(),
                    what: e.to_string(),
                })?;
                HistoryPack { dir, ..p }
            }
        };
        self.built.insert((c, j), pack.clone());
        Ok(pack)
    }
}

/// The segment packs already under `root` that together hold exactly the history of
/// `base` (a full commit id), whatever chains built them: the segment whose tip is
/// `base`, then one whose tip is the ancestor that segment excludes, and so on down to a
/// root segment; `None` when a link of that chain is missing or unfinished. A checkout
/// links these instead of packing the history out of the source again.
pub fn packs_in(root: &Path, base: &str) -> Option<Vec<HistoryPack>> {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    let short = |id: &str| id.chars().take(12).collect::<String>();
    let mut tip = short(base);
    let mut packs: Vec<HistoryPack> = Vec::new();
    // Each step goes to a strict ancestor; more steps than segments means a bad layout.
    for _ in 0..=names.len() {
        let prefix = format!("{tip}-");
        let name = names
            .iter()
            .find(|n| **n == format!("{tip}-root"))
            .or_else(|| names.iter().find(|n| n.starts_with(&prefix)))?;
        let full = if packs.is_empty() { base } else { tip.as_str() };
        packs.push(existing_pack(&root.join(name), full)?);
        match &name[prefix.len()..] {
            "root" => return Some(packs),
            exclude => tip = exclude.to_string(),
        }
    }
    None
}

/// A segment directory's pack from an earlier run, if complete (its `.idx` is written
/// last and the directory renamed into place after).
fn existing_pack(dir: &Path, tip: &str) -> Option<HistoryPack> {
    let idx = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "idx"))?;
    Some(HistoryPack {
        dir: dir.to_path_buf(),
        name: idx.file_stem()?.to_string_lossy().into_owned(),
        base: tip.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::decomposition;

    #[test]
    fn decomposition_covers_the_prefix_once() {
        assert_eq!(decomposition(1), vec![1]);
        assert_eq!(decomposition(6), vec![6, 4]);
        assert_eq!(decomposition(7), vec![7, 6, 4]);
        assert_eq!(decomposition(8), vec![8]);
        for i in 1..200usize {
            let mut covered = Vec::new();
            for j in decomposition(i) {
                let low = j & j.wrapping_neg();
                covered.extend(j - low + 1..=j);
            }
            covered.sort_unstable();
            assert_eq!(covered, (1..=i).collect::<Vec<_>>(), "{i}");
            assert!(decomposition(i).len() <= (usize::BITS - i.leading_zeros()) as usize);
        }
    }
}

//! Object verification: every object a mined result depends on is re-hashed and compared
//! with its id, like libgit2's `strict_hash_verification` but with hardware SHA-1.

use git2::{Diff, Oid, Repository};
use std::collections::HashSet;
use std::path::PathBuf;

/// Object verification state of one worker.
pub(super) struct Verifier {
    /// `Some` when objects are verified: the ids already hashed by this worker, so trees
    /// and blobs shared by neighbouring commits are hashed once.
    seen: Option<HashSet<Oid>>,
}

impl Verifier {
    /// A verifier that hashes objects when `verify` is on and trusts the store otherwise.
    pub(super) fn new(verify: bool) -> Self {
        Verifier {
            seen: verify.then(HashSet::new),
        }
    }

    /// Hash one object's raw bytes and compare with its id, once per worker; a no-op when
    /// verification is off. Catches corrupt or tampered object stores like libgit2's
    /// `strict_hash_verification`, with a hardware-accelerated SHA-1.
    pub(super) fn verify_object(&mut self, repo: &Repository, id: Oid) -> Result<(), git2::Error> {
        let Some(seen) = self.seen.as_mut() else {
            return Ok(());
        };
        if id.is_zero() || !seen.insert(id) {
            return Ok(());
        }
        let odb = repo.odb()?;
        let obj = odb.read(id)?;
        check_hash(obj.kind(), obj.data(), id)
    }

    /// Verify both blobs of delta `i` (read through the object cache, so the diff that
    /// follows reuses them instead of reading them again).
    pub(super) fn verify_blobs(
        &mut self,
        repo: &Repository,
        diff: &Diff<'_>,
        i: usize,
    ) -> Result<(), git2::Error> {
        let Some(seen) = self.seen.as_mut() else {
            return Ok(());
        };
        let Some(delta) = diff.get_delta(i) else {
            return Ok(());
        };
        for file in [delta.old_file(), delta.new_file()] {
            let id = file.id();
            // Submodule entries (gitlinks) name commits of another repository.
            if id.is_zero() || file.mode() == git2::FileMode::Commit || !seen.insert(id) {
                continue;
            }
            let blob = repo.find_blob(id)?;
            check_hash(git2::ObjectType::Blob, blob.content(), id)?;
        }
        Ok(())
    }

    /// Verify everything a commit's diff was computed from: the commit, both root trees,
    /// the trees along every changed path and, with `blobs`, the changed blobs. Unchanged
    /// subtrees are compared by id only, so their content never reaches the output.
    pub(super) fn verify_diff(
        &mut self,
        repo: &Repository,
        commit: &git2::Commit<'_>,
        diff: &Diff<'_>,
        blobs: bool,
    ) -> Result<(), git2::Error> {
        if self.seen.is_none() {
            return Ok(());
        }
        self.verify_object(repo, commit.id())?;
        let new_root = commit.tree_id();
        let old_root = if commit.parent_count() == 1 {
            Some(commit.parent(0)?.tree_id())
        } else {
            None
        };
        let mut trees: Vec<Oid> = vec![new_root];
        trees.extend(old_root);
        for (i, delta) in diff.deltas().enumerate() {
            for (root, file) in [
                (old_root, delta.old_file()),
                (Some(new_root), delta.new_file()),
            ] {
                let (Some(root), Some(path)) = (root, file.path()) else {
                    continue;
                };
                if file.id().is_zero() {
                    continue;
                }
                let root = repo.find_tree(root)?;
                let mut dir = PathBuf::new();
                let parents: Vec<_> = path
                    .parent()
                    .into_iter()
                    .flat_map(|p| p.components())
                    .collect();
                for comp in parents {
                    dir.push(comp);
                    trees.push(root.get_path(&dir)?.id());
                }
            }
            if blobs {
                self.verify_blobs(repo, diff, i)?;
            }
        }
        for id in trees {
            self.verify_object(repo, id)?;
        }
        Ok(())
    }
}

/// Compare an object's git hash (`<kind> <len>\0<data>`) with its id.
fn check_hash(kind: git2::ObjectType, data: &[u8], id: Oid) -> Result<(), git2::Error> {
    use sha1::{Digest, Sha1};
    let mut h = Sha1::new();
    h.update(format!("{} {}\0", kind.str(), data.len()).as_bytes());
    h.update(data);
    if h.finalize().as_slice() == id.as_bytes() {
        Ok(())
    } else {
        Err(git2::Error::from_str(&format!(
            "object {id} is corrupt: its content does not hash to its id"
        )))
    }
}

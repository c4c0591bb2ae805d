//! Write a revision's tree into a plain directory (no `.git`): the working copies that
//! test runs use, read straight from the object database.

use super::{with_repo, GitError};
use std::path::Path;

/// Write the tree of `rev` into `dir` (created; must be empty or absent), with regular
/// files, executable bits and symbolic links as git stores them. Submodule entries are
/// left as empty directories. Returns the tree's id.
pub fn export_tree(repo: &Path, rev: &str, dir: &Path) -> Result<String, GitError> {
    with_repo(repo, |r| {
        let commit = r
            .revparse_single(rev)
            .and_then(|o| o.peel_to_commit())
            .map_err(|e| GitError::UnknownRevision {
                path: repo.to_path_buf(),
                rev: rev.to_string(),
                source: e.into(),
            })?;
        let tree = commit.tree().map_err(|e| GitError::Object {
            path: repo.to_path_buf(),
            what: format!("tree of {rev}"),
            source: e.into(),
        })?;
        let io = |what: String| {
            let path = repo.to_path_buf();
            move |e: std::io::Error| GitError::Object {
                path,
                what: format!("{what}: {e}"),
                source: git2::Error::from_str("write failed").into(),
            }
        };
        std::fs::create_dir_all(dir).map_err(io(dir.display().to_string()))?;
        let mut failure: Option<GitError> = None;
        tree.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
            let name = String::from_utf8_lossy(entry.name_bytes()).into_owned();
            let rel = format!("{root}{name}");
            let target = dir.join(&rel);
            let result = (|| -> Result<(), GitError> {
                match entry.kind() {
                    Some(git2::ObjectType::Tree) => {
                        std::fs::create_dir_all(&target).map_err(io(rel.clone()))
                    }
                    Some(git2::ObjectType::Blob) => {
                        let blob = r.find_blob(entry.id()).map_err(|e| GitError::Object {
                            path: repo.to_path_buf(),
                            what: format!("{rel} at {rev}"),
                            source: e.into(),
                        })?;
                        if entry.filemode() == 0o120000 {
                            let link = String::from_utf8_lossy(blob.content()).into_owned();
                            std::os::unix::fs::symlink(link, &target).map_err(io(rel.clone()))
                        } else {
                            std::fs::write(&target, blob.content()).map_err(io(rel.clone()))?;
                            if entry.filemode() == 0o100755 {
                                use std::os::unix::fs::PermissionsExt;
                                std::fs::set_permissions(
                                    &target,
                                    std::fs::Permissions::from_mode(0o755),
                                )
                                .map_err(io(rel.clone()))?;
                            }
                            Ok(())
                        }
                    }
                    // A submodule (commit entry): an empty directory, as a plain clone has.
                    _ => std::fs::create_dir_all(&target).map_err(io(rel.clone())),
                }
            })();
            match result {
                Ok(()) => git2::TreeWalkResult::Ok,
                Err(e) => {
                    failure = Some(e);
                    git2::TreeWalkResult::Abort
                }
            }
        })
        .ok();
        match failure {
            Some(e) => Err(e),
            None => Ok(tree.id().to_string()),
        }
    })
}

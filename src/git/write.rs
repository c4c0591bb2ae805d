//! Writing repository states: a tree exported to a plain directory (Worst), and a state
//! repository whose object store is exactly a pack of its own history (Best, ARCHITECTURE §6).
//!
//! Nothing here writes into the source repository: new blobs, trees and the state's own
//! commit are created in the state repository, whose store starts as a pack of the base
//! history copied out of the source (pack.rs).

use super::command;
use super::error::{io_err, GitError};
use super::pack::{pack_files, HistoryPack};
use super::repo::{resolve_commit, with_repo};
use crate::diff::{apply_patch_to_files_in, AppliedFile, Patch, Placement};
use std::path::{Component, Path, PathBuf};

/// Who made a commit and when, so a state's commit can carry a real or a neutral identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person {
    /// Name.
    pub name: String,
    /// E-mail address.
    pub email: String,
    /// Seconds since the epoch.
    pub time: i64,
    /// Time-zone offset in minutes.
    pub offset_minutes: i32,
}

/// Message and signatures of the one commit a Partial or Resolved state adds on its base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitMeta {
    /// The whole message.
    pub message: String,
    /// Author.
    pub author: Person,
    /// Committer.
    pub committer: Person,
}

/// One file of a state's tree that differs from its base commit's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    /// Repository-relative path.
    pub path: String,
    /// New content; `None` when the state lacks the file.
    pub content: Option<Vec<u8>>,
    /// Git mode of the new content (100644, 100755 or 120000).
    pub mode: u32,
}

/// A written Best-state repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateRepo {
    /// The work tree (the repository is `<dir>/.git`).
    pub dir: PathBuf,
    /// Full id of HEAD (the base commit, or the state's own commit on top of it).
    pub head: String,
    /// Pack files in the state's store: the history pack's, then the top commit's.
    pub packs: Vec<PathBuf>,
}

pub(super) fn object_err(
    path: &Path,
    what: impl Into<String>,
) -> impl FnOnce(git2::Error) -> GitError {
    let path = path.to_path_buf();
    let what = what.into();
    move |e| GitError::Object {
        path,
        what,
        source: e.into(),
    }
}

fn person(sig: &git2::Signature<'_>) -> Person {
    Person {
        name: String::from_utf8_lossy(sig.name_bytes()).into_owned(),
        email: String::from_utf8_lossy(sig.email_bytes()).into_owned(),
        time: sig.when().seconds(),
        offset_minutes: sig.when().offset_minutes(),
    }
}

/// The message, author and committer of a commit, to replay the real fix on a Resolved
/// state.
pub fn commit_meta(repo: &Path, rev: &str) -> Result<CommitMeta, GitError> {
    with_repo(repo, |r| {
        let id = resolve_commit(r, repo, rev)?;
        let c = r
            .find_commit(id)
            .map_err(object_err(repo, format!("commit {rev}")))?;
        let (author, committer) = (person(&c.author()), person(&c.committer()));
        let message = String::from_utf8_lossy(c.message_raw_bytes()).into_owned();
        Ok(CommitMeta {
            message,
            author,
            committer,
        })
    })
}

/// The content of `file` in `tree`, `None` when it is not a blob there.
fn tree_file(r: &git2::Repository, tree: &git2::Tree<'_>, file: &str) -> Option<Vec<u8>> {
    let entry = tree.get_path(Path::new(file)).ok()?;
    let blob = entry.to_object(r).ok()?.peel_to_blob().ok()?;
    Some(blob.content().to_vec())
}

/// The files `patch` changes when applied to `tree`: path and new content (`None` when
/// deleted), exact as [`crate::diff::apply_patch_to_files`] applies them.
fn apply_to_tree(
    r: &git2::Repository,
    path: &Path,
    tree: &git2::Tree<'_>,
    label: &str,
    patch: &Patch,
) -> Result<Vec<AppliedFile>, GitError> {
    // A binary file's new content is the blob its `index` line names, when `r` has it.
    let objects = |id: &str| super::repo::blob_in(r, id);
    apply_patch_to_files_in(
        patch,
        |file| tree_file(r, tree, file),
        Placement::Exact,
        &objects,
    )
    .map_err(|source| GitError::Apply {
        path: path.to_path_buf(),
        rev: label.to_string(),
        source: Box::new(source),
    })
}

/// The files `patch` changes when applied to `rev`'s tree (nothing is written), so
/// callers can check that a candidate patch applies before materializing anything.
pub fn patched_tree_files(
    repo: &Path,
    rev: &str,
    patch: &Patch,
) -> Result<Vec<AppliedFile>, GitError> {
    with_repo(repo, |r| {
        let tree = super::repo::tree_at(r, repo, rev)?;
        apply_to_tree(r, repo, &tree, rev, patch)
    })
}

/// `patch` as `git apply` would place it on `rev`'s tree (hunks moved to the nearest
/// exact match), with the offsets of the files whose hunks moved (see
/// [`crate::diff::place_patch`]): a SWE-bench row's patch made against a
/// neighbouring revision applies there with the official harness.
pub fn placed_patch(
    repo: &Path,
    rev: &str,
    patch: &Patch,
) -> Result<(Patch, Vec<String>), GitError> {
    with_repo(repo, |r| {
        let tree = super::repo::tree_at(r, repo, rev)?;
        crate::diff::place_patch(patch, |file| tree_file(r, &tree, file)).map_err(|source| {
            GitError::Apply {
                path: repo.to_path_buf(),
                rev: rev.to_string(),
                source: Box::new(source),
            }
        })
    })
}

/// `file` joined under `dir`, refusing absolute paths, `..` and `.git` components.
pub(super) fn safe_join(dir: &Path, file: &str) -> Result<PathBuf, GitError> {
    let rel = Path::new(file);
    let ok = !file.is_empty()
        && rel.components().all(|c| match c {
            Component::Normal(n) => !n.eq_ignore_ascii_case(".git"),
            _ => false,
        });
    if ok {
        Ok(dir.join(rel))
    } else {
        Err(GitError::UnsafePath {
            dir: dir.to_path_buf(),
            file: file.to_string(),
        })
    }
}

/// Refuse to write through a symbolic link the tree placed between `dir` and `target`
/// (a patch adding `link/file` where `link` points outside would write outside).
pub(super) fn no_symlink_between(dir: &Path, target: &Path, file: &str) -> Result<(), GitError> {
    let mut p = target.parent();
    while let Some(d) = p {
        if d == dir {
            break;
        }
        if std::fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(GitError::UnsafePath {
                dir: dir.to_path_buf(),
                file: file.to_string(),
            });
        }
        p = d.parent();
    }
    Ok(())
}

/// Write one file with git's mode: executable bit for 100755, a symbolic link for 120000.
pub(super) fn write_file(target: &Path, content: &[u8], mode: u32) -> Result<(), GitError> {
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    match std::fs::symlink_metadata(target) {
        Ok(_) => std::fs::remove_file(target).map_err(io_err(target))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(target)(e)),
    }
    #[cfg(unix)]
    if mode == 0o120000 {
        use std::os::unix::ffi::OsStrExt;
        let link = std::ffi::OsStr::from_bytes(content);
        return std::os::unix::fs::symlink(link, target).map_err(io_err(target));
    }
    std::fs::write(target, content).map_err(io_err(target))?;
    #[cfg(unix)]
    if mode == 0o100755 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(target, std::fs::Permissions::from_mode(0o755))
            .map_err(io_err(target))?;
    }
    Ok(())
}

/// Write `tree` under `dir` (blobs as files, submodules as empty directories).
pub(super) fn write_tree_dir(
    r: &git2::Repository,
    repo: &Path,
    tree: &git2::Tree<'_>,
    dir: &Path,
    prefix: &str,
) -> Result<(), GitError> {
    for entry in tree.iter() {
        let name = String::from_utf8_lossy(entry.name_bytes()).into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let target = safe_join(dir, &rel)?;
        match entry.kind() {
            Some(git2::ObjectType::Tree) => {
                let sub = entry
                    .to_object(r)
                    .and_then(|o| o.peel_to_tree())
                    .map_err(object_err(repo, format!("tree {rel}")))?;
                std::fs::create_dir_all(&target).map_err(io_err(&target))?;
                write_tree_dir(r, repo, &sub, dir, &rel)?;
            }
            Some(git2::ObjectType::Blob) => {
                let blob = entry
                    .to_object(r)
                    .and_then(|o| o.peel_to_blob())
                    .map_err(object_err(repo, format!("blob {rel}")))?;
                write_file(&target, blob.content(), entry.filemode() as u32)?;
            }
            // A submodule (gitlink): its contents are another repository's.
            _ => std::fs::create_dir_all(&target).map_err(io_err(&target))?,
        }
    }
    Ok(())
}

/// Mode a patched file gets: the patch's new mode, else the tree's, else a plain file.
fn mode_for(patch: &Patch, tree: &git2::Tree<'_>, file: &str) -> u32 {
    let from_patch = patch
        .files
        .iter()
        .rev()
        .find(|fp| fp.new_path.as_deref() == Some(file))
        .and_then(|fp| fp.new_mode);
    from_patch
        .or_else(|| {
            tree.get_path(Path::new(file))
                .ok()
                .map(|e| e.filemode() as u32)
        })
        .unwrap_or(0o100644)
}

/// Export `rev`'s tree (a commit or tree id or any revision) into `dir`, then apply
/// `patch` on top, so Worst states and test working copies need no `.git` and no
/// checkout. `dir` is created if missing; existing files are overwritten.
pub fn export_tree(
    repo: &Path,
    rev: &str,
    patch: Option<&Patch>,
    dir: &Path,
) -> Result<(), GitError> {
    with_repo(repo, |r| {
        let tree = r
            .revparse_single(rev)
            .and_then(|o| o.peel_to_tree())
            .map_err(|e| GitError::UnknownRevision {
                path: repo.to_path_buf(),
                rev: rev.to_string(),
                source: e.into(),
            })?;
        let applied = match patch {
            Some(p) => apply_to_tree(r, repo, &tree, rev, p)?,
            None => Vec::new(),
        };
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        write_tree_dir(r, repo, &tree, dir, "")?;
        let Some(patch) = patch else {
            return Ok(());
        };
        for (file, content) in &applied {
            let target = safe_join(dir, file)?;
            no_symlink_between(dir, &target, file)?;
            match content {
                Some(bytes) => write_file(&target, bytes, mode_for(patch, &tree, file))?,
                None => remove_with_empty_parents(&target, dir)?,
            }
        }
        Ok(())
    })
}

/// Remove a file and the directories it leaves empty (git keeps no empty directories).
pub(super) fn remove_with_empty_parents(target: &Path, root: &Path) -> Result<(), GitError> {
    match std::fs::remove_file(target) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(target)(e)),
    }
    let mut dir = target.parent();
    while let Some(d) = dir {
        if d == root || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

/// Whether `ancestor` is `descendant` or one of its ancestors, to chain instance bases.
pub fn is_ancestor(repo: &Path, ancestor: &str, descendant: &str) -> Result<bool, GitError> {
    with_repo(repo, |r| {
        let a = resolve_commit(r, repo, ancestor)?;
        let d = resolve_commit(r, repo, descendant)?;
        if a == d {
            return Ok(true);
        }
        r.graph_descendant_of(d, a)
            .map_err(object_err(repo, format!("ancestry of {descendant}")))
    })
}

/// The full id of the commit `rev` names (`<fix>^` is its first parent), to pin a
/// mapped revision to the commit the repository holds.
pub fn commit_id(repo: &Path, rev: &str) -> Result<String, GitError> {
    with_repo(repo, |r| Ok(resolve_commit(r, repo, rev)?.to_string()))
}

/// Committer time of a commit, to order instance bases before chaining them.
pub fn commit_time(repo: &Path, rev: &str) -> Result<i64, GitError> {
    with_repo(repo, |r| {
        let id = resolve_commit(r, repo, rev)?;
        r.find_commit(id)
            .map(|c| c.time().seconds())
            .map_err(object_err(repo, format!("commit {rev}")))
    })
}

/// The nearest tag reachable from a commit (`git describe --tags --abbrev=0`), the
/// version a build of that commit would give itself from its history (setuptools_scm).
pub fn nearest_tag(repo: &Path, rev: &str) -> Result<Option<String>, GitError> {
    with_repo(repo, |r| {
        let id = resolve_commit(r, repo, rev)?;
        let Ok(object) = r.find_object(id, None) else {
            return Ok(None);
        };
        let mut opts = git2::DescribeOptions::new();
        opts.describe_tags();
        let mut format = git2::DescribeFormatOptions::new();
        format.abbreviated_size(0);
        Ok(object
            .describe(&opts)
            .ok()
            .and_then(|d| d.format(Some(&format)).ok()))
    })
}

/// [`nearest_tag`], remembered in `memo` under the commit and every tag's name and
/// target: libgit2's describe looks up each tag again on every call, which made it a
/// tenth of a warm rebuild; a new or moved tag changes the key.
pub fn nearest_tag_memo(
    repo: &Path,
    rev: &str,
    memo: &crate::cache::Cache,
) -> Result<Option<String>, GitError> {
    let key = with_repo(repo, |r| {
        let id = resolve_commit(r, repo, rev)?;
        let mut tags: Vec<(String, git2::Oid)> = Vec::new();
        let refs = r
            .references_glob("refs/tags/*")
            .map_err(object_err(repo, "the tags"))?;
        for reference in refs.flatten() {
            if let (Ok(name), Some(target)) = (reference.name(), reference.target()) {
                tags.push((name.to_string(), target));
            }
        }
        tags.sort();
        let listed: Vec<String> = tags.iter().map(|(n, t)| format!("{n} {t}")).collect();
        Ok(crate::cache::Key::of(&[
            b"hunkgen-describe-v1",
            id.as_bytes(),
            listed.join("\n").as_bytes(),
        ]))
    })?;
    if let Some(hit) = memo
        .get(&key)
        .and_then(|b| serde_json::from_slice::<Option<String>>(&b).ok())
    {
        return Ok(hit);
    }
    let tag = nearest_tag(repo, rev)?;
    if let Ok(bytes) = serde_json::to_vec(&tag) {
        // A memo that cannot be written is only a slower next build.
        let _ = memo.put(&key, &bytes);
    }
    Ok(tag)
}

/// Hardlink `from` to `to`, copying when the two are on different file systems.
fn link_or_copy(from: &Path, to: &Path) -> Result<(), GitError> {
    match std::fs::hard_link(from, to) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EXDEV) => {
            std::fs::copy(from, to).map(|_| ()).map_err(io_err(to))
        }
        Err(e) => Err(io_err(to)(e)),
    }
}

/// Build a Best-state repository with a checked-out work tree at `dir` (which must not
/// exist or be empty): branch `main` at `base`, or, with `top`, at one new commit on it
/// whose tree is the base tree with the edits written over it and whose message and signatures
/// are the given ones. The store holds the `history` packs (hardlinked; together they
/// must hold exactly the objects reachable from `base`) plus, with `top`, one small pack
/// of the new commit's own objects; no tags, remotes, reflogs or other refs are written.
pub fn build_state_repo(
    dir: &Path,
    base: &str,
    history: &[HistoryPack],
    top: Option<(&[FileEdit], &CommitMeta)>,
) -> Result<StateRepo, GitError> {
    let mut files = Vec::new();
    for h in history {
        files.extend(h.files()?);
    }
    let (r, mut packs) = init_state_repo(dir, &files)?;
    let pack_dir = r.path().join("objects/pack");
    let base_id = git2::Oid::from_str(base)
        .and_then(|id| r.find_commit(id))
        .map_err(object_err(
            dir,
            format!("base commit {base} in the history packs"),
        ))?;
    let head = match top {
        None => base_id.id(),
        Some((edits, meta)) => {
            let id = commit_on(&r, dir, &base_id, edits, meta)?;
            // Move the new objects (blobs, trees, the commit) from loose files into one
            // small pack of what the base history does not already hold.
            let prefix = pack_dir.join("pack");
            let out = command::run_ok(
                dir,
                &[
                    "pack-objects",
                    "--revs",
                    "--delta-base-offset",
                    "-q",
                    &prefix.to_string_lossy(),
                ],
                format!("{id}\n^{base}\n").as_bytes(),
            )?;
            let name = format!("pack-{}", String::from_utf8_lossy(&out).trim());
            packs.extend(pack_files(&pack_dir, &name)?);
            command::run_ok(dir, &["prune-packed", "-q"], b"")?;
            id
        }
    };
    check_out_main(&r, dir, head)?;
    Ok(StateRepo {
        dir: dir.to_path_buf(),
        head: head.to_string(),
        packs,
    })
}

/// Recreate a published Best-state repository at `dir` (which must not exist or be
/// empty) from the pack files of its store (`.pack`, `.idx`, `.rev`; hardlinked, copied
/// across file systems): the same objects, `main` at `head`, the work tree checked out,
/// nothing packed or committed again. `head` must be a commit in those packs.
pub fn link_state_repo(dir: &Path, packs: &[PathBuf], head: &str) -> Result<StateRepo, GitError> {
    let (r, linked) = init_state_repo(dir, packs)?;
    let id = git2::Oid::from_str(head)
        .and_then(|id| r.find_commit(id))
        .map_err(object_err(
            dir,
            format!("head commit {head} in the state's packs"),
        ))?
        .id();
    check_out_main(&r, dir, id)?;
    Ok(StateRepo {
        dir: dir.to_path_buf(),
        head: id.to_string(),
        packs: linked,
    })
}

/// A new state repository at `dir` as every state has it (branch `main`, no template,
/// no reflogs, blobs byte for byte) whose store holds `files` (pack files, hardlinked);
/// returns a handle opened after the linking, and where the files landed.
fn init_state_repo(
    dir: &Path,
    files: &[PathBuf],
) -> Result<(git2::Repository, Vec<PathBuf>), GitError> {
    let init_err = object_err(dir, "init state repository");
    let r = git2::Repository::init_opts(
        dir,
        git2::RepositoryInitOptions::new()
            .initial_head("main")
            .external_template(false)
            .mkdir(true)
            .mkpath(true),
    )
    .map_err(init_err)?;
    {
        let mut cfg = r.config().map_err(object_err(dir, "config"))?;
        // No reflogs (they would keep objects and history reachable from outside HEAD),
        // and the blobs land in the work tree byte for byte.
        cfg.set_bool("core.logAllRefUpdates", false)
            .and_then(|_| cfg.set_bool("core.autocrlf", false))
            .map_err(object_err(dir, "config"))?;
    }
    let pack_dir = r.path().join("objects/pack");
    std::fs::create_dir_all(&pack_dir).map_err(io_err(&pack_dir))?;
    let mut packs = Vec::new();
    for file in files {
        let Some(name) = file.file_name() else {
            continue;
        };
        let to = pack_dir.join(name);
        if *file != to {
            link_or_copy(file, &to)?;
        }
        packs.push(to);
    }
    // A fresh handle, so libgit2 sees the packs just linked in.
    drop(r);
    let r = git2::Repository::open(dir).map_err(|e| GitError::NotARepository {
        path: dir.to_path_buf(),
        source: e.into(),
    })?;
    Ok((r, packs))
}

/// Point `main` at `head`, check it out, and drop any reflog libgit2 wrote.
fn check_out_main(r: &git2::Repository, dir: &Path, head: git2::Oid) -> Result<(), GitError> {
    r.reference("refs/heads/main", head, true, "")
        .map_err(object_err(dir, "refs/heads/main"))?;
    r.checkout_head(Some(git2::build::CheckoutBuilder::new().force()))
        .map_err(object_err(dir, "checkout of HEAD"))?;
    let logs = r.path().join("logs");
    if logs.exists() {
        std::fs::remove_dir_all(&logs).map_err(io_err(&logs))?;
    }
    Ok(())
}

fn signature(p: &Person) -> Result<git2::Signature<'static>, git2::Error> {
    git2::Signature::new(
        &p.name,
        &p.email,
        &git2::Time::new(p.time, p.offset_minutes),
    )
}

/// Create (without moving any ref) the commit on `base` whose tree is `base`'s with
/// `edits` written over it.
fn commit_on(
    r: &git2::Repository,
    dir: &Path,
    base: &git2::Commit<'_>,
    edits: &[FileEdit],
    meta: &CommitMeta,
) -> Result<git2::Oid, GitError> {
    let base_tree = base.tree().map_err(object_err(dir, "base tree"))?;
    let mut index = git2::Index::new().map_err(object_err(dir, "index"))?;
    index
        .read_tree(&base_tree)
        .map_err(object_err(dir, "index of the base tree"))?;
    for e in edits.iter().filter(|e| e.content.is_none()) {
        safe_join(dir, &e.path)?;
        if index.get_path(Path::new(&e.path), 0).is_some() {
            index
                .remove_path(Path::new(&e.path))
                .map_err(object_err(dir, format!("remove {}", e.path)))?;
        }
    }
    for e in edits {
        let Some(bytes) = &e.content else { continue };
        safe_join(dir, &e.path)?;
        let id = r
            .blob(bytes)
            .map_err(object_err(dir, format!("blob {}", e.path)))?;
        let entry = git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: e.mode,
            uid: 0,
            gid: 0,
            file_size: bytes.len() as u32,
            id,
            flags: 0,
            flags_extended: 0,
            path: e.path.as_bytes().to_vec(),
        };
        index
            .add(&entry)
            .map_err(object_err(dir, format!("index entry {}", e.path)))?;
    }
    let tree_id = index
        .write_tree_to(r)
        .map_err(object_err(dir, "patched tree"))?;
    let tree = r
        .find_tree(tree_id)
        .map_err(object_err(dir, "patched tree"))?;
    let author = signature(&meta.author).map_err(object_err(dir, "author signature"))?;
    let committer = signature(&meta.committer).map_err(object_err(dir, "committer signature"))?;
    r.commit(None, &author, &committer, &meta.message, &tree, &[base])
        .map_err(object_err(dir, "state commit"))
}

/// For each needle, whether any file of `rev`'s tree contains it, so a leak probe can be
/// a line the state's history has never held (a line already in the tree would make
/// `log -S` find the commits that introduced it, which are no leak).
pub fn tree_contains(repo: &Path, rev: &str, needles: &[&[u8]]) -> Result<Vec<bool>, GitError> {
    with_repo(repo, |r| {
        let tree = r
            .revparse_single(rev)
            .and_then(|o| o.peel_to_tree())
            .map_err(|e| GitError::UnknownRevision {
                path: repo.to_path_buf(),
                rev: rev.to_string(),
                source: e.into(),
            })?;
        let finders: Vec<memchr::memmem::Finder<'_>> =
            needles.iter().map(memchr::memmem::Finder::new).collect();
        let mut found = vec![false; needles.len()];
        let mut failed = None;
        tree.walk(git2::TreeWalkMode::PreOrder, |_, entry| {
            if entry.kind() != Some(git2::ObjectType::Blob) {
                return git2::TreeWalkResult::Ok;
            }
            match r.find_blob(entry.id()) {
                Ok(blob) => {
                    for (k, f) in finders.iter().enumerate() {
                        found[k] |= f.find(blob.content()).is_some();
                    }
                }
                Err(e) => {
                    failed = Some(e);
                    return git2::TreeWalkResult::Abort;
                }
            }
            if found.iter().all(|&b| b) {
                git2::TreeWalkResult::Abort
            } else {
                git2::TreeWalkResult::Ok
            }
        })
        .ok();
        if let Some(e) = failed {
            return Err(object_err(repo, format!("blobs of {rev}"))(e));
        }
        Ok(found)
    })
}

//! Defects4J's Perl passes a work directory to `git` and `ant` unquoted (`git clone …
//! $dir`, `cd $dir && ant …`), so a path with a space breaks it; it is given a symlink
//! of a plain path instead.

use super::D4jError;
use crate::validate::runner::{Command, RunSpec};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A work directory whose path needs it is named by a plain symlink in `spec`'s
/// arguments; the directory holding the symlink is bound into the sandbox, and goes when
/// the returned guard is dropped (after the run).
pub(super) fn plain_workdir(spec: &mut RunSpec) -> Result<Option<tempfile::TempDir>, D4jError> {
    let workdir = spec.workdir.clone();
    let alias = plain_alias(&workdir).map_err(|source| D4jError::Io {
        path: workdir.clone(),
        source,
    })?;
    let (Some((dir, link)), Command::Exec { args, .. }) = (alias, &mut spec.command) else {
        return Ok(None);
    };
    for a in args
        .iter_mut()
        .filter(|a| a.as_os_str() == workdir.as_os_str())
    {
        *a = OsString::from(&link);
    }
    spec.readable.push(dir.path().to_path_buf());
    Ok(Some(dir))
}

/// For a work directory whose path a shell would split (Defects4J runs `git clone …
/// $dir` and `cd $dir && ant …` unquoted), a fresh directory under a plain temporary
/// path holding the symlink `w` to it, and that symlink; `None` for a plain path.
fn plain_alias(workdir: &Path) -> std::io::Result<Option<(tempfile::TempDir, PathBuf)>> {
    let plain = |p: &Path| {
        p.to_str().is_some_and(|s| {
            s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "/._-+,=@%:".contains(c))
        })
    };
    if plain(workdir) {
        return Ok(None);
    }
    let bases = [std::env::temp_dir(), "/var/tmp".into(), "/tmp".into()];
    let Some(base) = bases.iter().find(|b| plain(b) && b.is_dir()) else {
        return Err(std::io::Error::other(
            "no temporary directory with a plain path for Defects4J's work directory symlink",
        ));
    };
    let dir = tempfile::Builder::new()
        .prefix("hunkgen-d4j-")
        .tempdir_in(base)?;
    let link = dir.path().join("w");
    std::os::unix::fs::symlink(workdir, &link)?;
    Ok(Some((dir, link)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_work_directory_with_a_space_gets_a_plain_symlink() {
        let base = tempfile::Builder::new()
            .prefix("d4j work ")
            .tempdir()
            .expect("tempdir");
        let (dir, link) = plain_alias(base.path()).expect("alias").expect("needed");
        assert!(!link.to_string_lossy().contains(' '));
        assert_eq!(fs::read_link(&link).expect("symlink"), base.path());
        assert!(link.starts_with(dir.path()));
        assert!(plain_alias(dir.path()).expect("plain").is_none());
    }
}

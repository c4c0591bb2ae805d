//! Defects4J's `project_repos/<name>.git` are often links to clones kept elsewhere (a
//! mirror directory, a shared disk), and a clone may borrow objects from another through
//! git's `objects/info/alternates`. The sandbox binds only what a run names, so those
//! places are named too (read-only), or `git clone` inside it finds no repository.

use std::path::{Path, PathBuf};

/// The places outside `home` that `home/project_repos` reaches: each entry's real path
/// and the object directories its alternates name (followed through further alternates).
pub(super) fn outside_places(home: &Path) -> Vec<PathBuf> {
    let real_home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    let mut out: Vec<PathBuf> = Vec::new();
    let add = |p: PathBuf, out: &mut Vec<PathBuf>| {
        if !p.starts_with(&real_home) && !out.iter().any(|o| p.starts_with(o)) {
            out.retain(|o| !o.starts_with(&p));
            out.push(p);
        }
    };
    let Ok(entries) = std::fs::read_dir(home.join("project_repos")) else {
        return out;
    };
    let mut repos: Vec<PathBuf> = entries
        .flatten()
        .filter_map(|e| std::fs::canonicalize(e.path()).ok())
        .filter(|p| p.is_dir())
        .collect();
    repos.sort();
    let mut objects: Vec<PathBuf> = Vec::new();
    for repo in repos {
        let dir = if repo.join(".git").is_dir() {
            repo.join(".git/objects")
        } else {
            repo.join("objects")
        };
        objects.push(dir);
        add(repo, &mut out);
    }
    // Alternates chains are short; the bound keeps a cycle from looping.
    let mut seen = 0;
    while let Some(dir) = objects.pop() {
        seen += 1;
        if seen > 256 {
            break;
        }
        let Ok(text) = std::fs::read_to_string(dir.join("info/alternates")) else {
            continue;
        };
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let alt = if Path::new(line).is_absolute() {
                PathBuf::from(line)
            } else {
                dir.join(line)
            };
            if let Ok(real) = std::fs::canonicalize(&alt) {
                objects.push(real.clone());
                add(real, &mut out);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linked_repositories_and_their_alternates_are_named() {
        let t = tempfile::tempdir().expect("tempdir");
        let home = t.path().join("d4j");
        let repos = home.join("project_repos");
        std::fs::create_dir_all(&repos).expect("mkdir");
        // One clone inside home, one linked from elsewhere borrowing a third's objects.
        std::fs::create_dir_all(repos.join("inside.git/objects")).expect("mkdir");
        let mirror = t.path().join("mirror/a.git");
        let borrowed = t.path().join("store/b.git/objects");
        std::fs::create_dir_all(mirror.join("objects/info")).expect("mkdir");
        std::fs::create_dir_all(&borrowed).expect("mkdir");
        std::fs::write(
            mirror.join("objects/info/alternates"),
            format!("{}\n", borrowed.display()),
        )
        .expect("alternates");
        std::os::unix::fs::symlink(&mirror, repos.join("a.git")).expect("link");
        std::fs::write(repos.join("README"), "x").expect("readme");
        let real = |p: &Path| std::fs::canonicalize(p).expect("canonical");
        assert_eq!(outside_places(&home), [real(&mirror), real(&borrowed)]);
    }
}

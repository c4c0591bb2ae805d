//! Setup shared by the benchmarks that build the demo (a module, not a bench target).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The demo laid out as in the repository under `root`: `target/demo-repo` built by
/// demo/build-repo.sh and `recipes/demo.yaml`, so the recipe's relative paths hold.
pub fn demo_layout(root: &Path) {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let built = Command::new("sh")
        .arg(manifest.join("demo/build-repo.sh"))
        .arg(root.join("target/demo-repo"))
        .output()
        .expect("build-repo.sh");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    std::fs::create_dir_all(root.join("recipes")).expect("mkdir");
    std::fs::copy(
        manifest.join("recipes/demo.yaml"),
        root.join("recipes/demo.yaml"),
    )
    .expect("recipe");
}

//! `env: command: {setup, inputs}`: any setup, a shell command run in the new
//! environment's directory (`HUNKGEN_ENV_DIR`), keyed by the contents of its inputs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::kind::{KeyInputs, Kind};
use super::{CommandEnv, EnvCache, EnvError};
use crate::validate::runner::Runner;

impl Kind for CommandEnv {
    fn name(&self) -> &'static str {
        "command"
    }

    fn absolutize(&mut self, resolve: &dyn Fn(&Path) -> PathBuf) -> Result<(), String> {
        for f in self.inputs.iter_mut() {
            *f = resolve(f);
        }
        Ok(())
    }

    fn key_inputs(&self, _repo: &str) -> Result<KeyInputs, EnvError> {
        Ok(KeyInputs {
            facts: Vec::new(),
            files: self.inputs.clone(),
        })
    }

    fn build(
        &self,
        cache: &EnvCache,
        runner: &Runner,
        repo: &str,
        key: &str,
        tmp: &Path,
    ) -> Result<bool, EnvError> {
        super::fresh(tmp)?;
        // The inputs are read where they are (under the private /tmp too); uv is there
        // for a setup that wants it.
        let mut readable: Vec<PathBuf> = cache.uv.iter().cloned().collect();
        readable.extend(self.inputs.iter().cloned());
        let vars: [(OsString, OsString); 1] =
            [("HUNKGEN_ENV_DIR".into(), tmp.as_os_str().to_owned())];
        cache
            .step(
                runner,
                repo,
                &format!("{key}-setup"),
                self.setup.clone(),
                tmp,
                cache.allow_network,
                &vars,
                &readable,
                &[],
            )
            .map(|()| !cache.allow_network)
    }
}

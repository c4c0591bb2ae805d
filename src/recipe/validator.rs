//! Validation as the dataset commands use it: the validator a recipe asks for, and the
//! build-level warning its environment failures give.

use crate::model::Rejected;
use crate::recipe::Plan;
use crate::validate::stage::{ValidatePlan, Validator};
use crate::validate::{RunError, Runner};

/// The runner and validator a plan's `validate:` asks for (the build, re-validation and
/// evaluation all run golden tests the same way).
pub fn validator<'p>(plan: &Plan, vplan: &'p ValidatePlan) -> Result<Validator<'p>, RunError> {
    let runner = Runner::new(plan.sandbox.policy())?;
    Ok(Validator::new(vplan, runner))
}

/// An environment that cannot be built rejects every instance that needs it: say it
/// once, as a build warning, not only per instance.
pub fn env_failure_warnings(rejected: &[Rejected]) -> Vec<String> {
    let mut env_failures: Vec<&str> = rejected
        .iter()
        .filter(|r| r.detail.starts_with("environment `"))
        .map(|r| r.detail.as_str())
        .collect();
    env_failures.sort_unstable();
    env_failures.dedup();
    env_failures.into_iter().map(|d| d.to_string()).collect()
}

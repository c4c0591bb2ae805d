//! Opening a built dataset for work that runs its recipe again (validate, evaluate, merge):
//! its card, and the recipe parsed back from the card.

use crate::dataset::{self, DatasetError};
use crate::model::Card;
use crate::recipe::{Plan, RecipeError};
use crate::validate::stage::ValidatePlan;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A dataset's card and the plan of the recipe it was built from.
#[derive(Debug)]
pub struct Opened {
    /// The card (`dataset.yaml`).
    pub card: Card,
    /// The card's recipe, loaded as the build loaded it.
    pub plan: Plan,
}

/// An opened dataset whose recipe says how to run its golden tests.
#[derive(Debug)]
pub struct WithTests {
    /// The card (`dataset.yaml`).
    pub card: Card,
    /// The card's recipe, loaded as the build loaded it.
    pub plan: Plan,
    /// The recipe's `validate:` section (a copy of `plan.validate`).
    pub tests: ValidatePlan,
}

/// Why a dataset could not be opened, naming the directory.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The card could not be read.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The directory has no card.
    #[error("{}: not a hunkgen dataset (no dataset.yaml)", dir.display())]
    NoCard {
        /// The directory.
        dir: PathBuf,
    },
    /// The card's recipe no longer loads.
    #[error("the dataset's recipe: {error}")]
    Recipe {
        /// The directory.
        dir: PathBuf,
        /// What is wrong with the recipe.
        error: RecipeError,
    },
    /// The recipe has no `validate:` section.
    #[error("{}: its recipe has no `validate:` section, so {why}", dir.display())]
    NoTests {
        /// The directory.
        dir: PathBuf,
        /// What cannot be done without it.
        why: &'static str,
    },
}

/// Open `dir`: its card and the recipe the card holds.
pub fn open(dir: &Path) -> Result<Opened, OpenError> {
    let card = dataset::read_card(dir)?.ok_or_else(|| OpenError::NoCard {
        dir: dir.to_path_buf(),
    })?;
    let plan =
        crate::recipe::load_text(&card.recipe, Path::new(&card.recipe_file), &BTreeMap::new())
            .map_err(|error| OpenError::Recipe {
                dir: dir.to_path_buf(),
                error,
            })?;
    Ok(Opened { card, plan })
}

/// Open `dir` and require its recipe's `validate:` section; `why` ends the error when it
/// has none (`"hunkgen does not know how to run its tests"`).
pub fn open_with_tests(dir: &Path, why: &'static str) -> Result<WithTests, OpenError> {
    let Opened { card, plan } = open(dir)?;
    let Some(tests) = plan.validate.clone() else {
        return Err(OpenError::NoTests {
            dir: dir.to_path_buf(),
            why,
        });
    };
    Ok(WithTests { card, plan, tests })
}

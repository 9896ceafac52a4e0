//! How a trap about a missing input advises the user: in the words of the front end that runs
//! the simulator — the CLI's flags (`--input a=FILE`, `--default-inputs`) or the Python
//! package's arguments (`inputs={"a": ...}`, `default_inputs=True`).

/// The front end running a simulation ([`crate::Sim::front_end`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum FrontEnd {
    /// The `pto` command (the default).
    #[default]
    Cli,
    /// `pto.run` in Python.
    Python,
}

/// What the missing input is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Missing {
    /// A tile or GM array: data from a file (CLI) or an array (Python).
    Data,
    /// A scalar argument: a number.
    Number,
}

impl FrontEnd {
    /// The advice for argument `name`, without parentheses: `give `--input a=FILE`, or use
    /// `--default-inputs``.
    pub fn give(self, name: &str, what: Missing) -> String {
        match (self, what) {
            (FrontEnd::Cli, Missing::Data) => format!("give `--input {name}=FILE`, or use `--default-inputs`"),
            (FrontEnd::Cli, Missing::Number) => format!("give one with `--input {name}=N`, or use `--default-inputs`"),
            (FrontEnd::Python, Missing::Data) => format!("pass `inputs={{\"{name}\": array}}`, or `default_inputs=True`"),
            (FrontEnd::Python, Missing::Number) => format!("pass `inputs={{\"{name}\": number}}`, or `default_inputs=True`"),
        }
    }

    /// How this front end asks for sync insertion before a run.
    pub fn insert_sync(self) -> &'static str {
        match self {
            FrontEnd::Cli => "`--insert-sync`",
            FrontEnd::Python => "`insert_sync=True`",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_front_end_names_its_own_way_to_give_an_input() {
        assert_eq!(FrontEnd::Cli.give("a", Missing::Data), "give `--input a=FILE`, or use `--default-inputs`");
        assert_eq!(FrontEnd::Python.give("n", Missing::Number), "pass `inputs={\"n\": number}`, or `default_inputs=True`");
        assert_eq!(FrontEnd::Python.insert_sync(), "`insert_sync=True`");
    }
}

//! The sandbox executable's command line as the addon writes it:
//! `codemode-sandbox <executors> <parent_pid> <data_limit_bytes>`. A missing or malformed
//! argument takes its default rather than stopping the process the gateway waits on.

/// How many commands may run at once when the addon does not say.
const DEFAULT_EXECUTORS: usize = 2;
/// More executor threads than any machine has cores is a corrupt argument, not a request.
const MAX_EXECUTORS: usize = 1024;

/// What the sandbox process is told when it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Args {
    /// How many commands may run at once (the addon's worker count).
    pub executors: usize,
    /// The gateway's pid, to notice it died before the parent-death signal was set;
    /// 0: unknown, not checked.
    pub parent_pid: u32,
    /// Bytes of data the process may map beyond what it holds when it locks down;
    /// 0: the default (`rlimits::DEFAULT_DATA_LIMIT_BYTES`).
    pub data_limit_bytes: u64,
}

impl Args {
    /// Reads the arguments after the program name.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Args {
        let mut args = args.into_iter();
        let executors = args
            .next()
            .and_then(|n| n.parse().ok())
            .filter(|n| (1..=MAX_EXECUTORS).contains(n))
            .unwrap_or(DEFAULT_EXECUTORS);
        // A pid is a positive `pid_t`; anything else cannot name the gateway.
        let parent_pid = args
            .next()
            .and_then(|n| n.parse::<i32>().ok())
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0);
        let data_limit_bytes = args.next().and_then(|n| n.parse().ok()).unwrap_or(0);
        Args {
            executors,
            parent_pid,
            data_limit_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Args;

    fn parse(line: &[&str]) -> Args {
        Args::parse(line.iter().map(|s| s.to_string()))
    }

    #[test]
    fn all_three_arguments_are_read() {
        let args = parse(&["3", "4242", "1073741824"]);
        assert_eq!(
            args,
            Args {
                executors: 3,
                parent_pid: 4242,
                data_limit_bytes: 1 << 30
            }
        );
    }

    #[test]
    fn missing_arguments_take_their_defaults() {
        let defaults = Args {
            executors: 2,
            parent_pid: 0,
            data_limit_bytes: 0,
        };
        assert_eq!(parse(&[]), defaults);
        assert_eq!(parse(&["5"]).parent_pid, 0);
        assert_eq!(parse(&["5", "7"]).data_limit_bytes, 0);
    }

    #[test]
    fn malformed_arguments_take_their_defaults() {
        let args = parse(&["many", "-1", "lots"]);
        assert_eq!(
            (args.executors, args.parent_pid, args.data_limit_bytes),
            (2, 0, 0)
        );
        assert_eq!(parse(&["0"]).executors, 2);
        assert_eq!(parse(&["100000000"]).executors, 2);
        assert_eq!(parse(&["2", "4294967295"]).parent_pid, 0);
        assert_eq!(parse(&["2", "12 "]).parent_pid, 0);
        assert_eq!(parse(&["2", "1", "-5"]).data_limit_bytes, 0);
    }
}

/**
 * How long the abort after a cancel signal may take. The runner sends
 * SIGINT, SIGTERM 7.5 s later, then kills: this leaves 2 s to report and exit.
 */
export const CANCEL_BUDGET_MS = 5500
/** How long the abort after the timeout may take: the step ends by `timeout` + 5 s, with 1.5 s to report and exit. */
export const TIMEOUT_BUDGET_MS = 3500

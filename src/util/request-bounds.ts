/**
 * The bounds of the step's requests to GitHub, which outlive the step's own
 * signal: until the step is stopped they are its cancel signal and its
 * `timeout` (a request in flight then ends at once, so that stopping the
 * Jenkins work never waits on GitHub); from the stop on, new requests (the
 * final commit status and comment) get what is left of the abort's budget.
 * runBounded (step/bounded-step.ts) switches them, the moment the signal fires.
 */

/** What bounds one request: it ends when `signal` fires, and never outlives `deadline` (epoch ms). */
export interface RequestBounds {
  signal?: AbortSignal
  deadline?: number
}

/** The step's bounds, then the abort's budget. */
export class StepBounds {
  private budgetEnd: number | undefined

  constructor(private readonly step: RequestBounds) {}

  /** The bounds a request starting now gets. */
  current(): RequestBounds {
    if (this.budgetEnd === undefined) return this.step
    return { deadline: this.budgetEnd }
  }

  /** The step was stopped: requests from now on end by `until` (epoch ms), the abort's budget. */
  budget(until: number): void {
    this.budgetEnd = until
  }
}

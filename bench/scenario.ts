/**
 * What a scenario is: a named measurement that runs against its own test
 * server(s) and returns its part of BENCHMARKS.md. A scenario is one file in
 * bench/scenarios/ plus one line in bench/scenarios/index.ts.
 */
import type { Runtime } from './runners/processes.js'

/** What every scenario is told about the bench it runs in. */
export interface BenchContext {
  /** `--quick`: fewer runs and shorter builds; the scenario picks its own smaller settings. */
  quick: boolean
  /** The Node both sides run under. */
  node: Runtime
  /** Size of dist/index.js. */
  bundleBytes: number
}

/** One row of the results table. */
export interface Row {
  metric: string
  ours: string
  baseline: string
  /** ours ÷ baseline (stats.ratio), or '' where it means nothing. */
  ratio: string
  /** The target from the issue, or '' when the row has none. */
  target: string
  /** undefined for a row without a target. */
  met: boolean | undefined
  /** For a missed target: by how much. */
  missedBy?: string
  /** For a missed target: why, and what would close it (printed under "Missed targets"). */
  why?: string
}

/** A scenario's part of the report; each list goes to the section of the same name, in scenario order. */
export interface Section {
  /** Bullets (`- …`) for "Settings": what ran, how many times, on what jobs. */
  settings: string[]
  /**
   * Executors of its server when more than Jenkins' default (so that no build
   * waits for one); undefined when it keeps the default. Named in the test
   * server's setting.
   */
  executors?: number
  /** Its rows of the results table. */
  rows: Row[]
  /** Markdown printed after the results table (a `###` sub-section with its own table). */
  details?: string[]
  /** Bullets (`- …`) for "Notes": what the figures mean. */
  notes: string[]
}

export interface Scenario {
  /** For `--only` and in the report: lowercase, dash-separated. */
  name: string
  /** One line for `--list`. */
  summary: string
  /** Runs the scenario (closing its servers, even on failure) and reports it. */
  run(context: BenchContext): Promise<Section>
}

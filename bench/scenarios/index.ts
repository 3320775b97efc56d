/**
 * Every scenario, in the order they run and appear in BENCHMARKS.md. To add
 * one: write bench/scenarios/<name>.ts exporting a Scenario (see
 * bench/scenario.ts and any file here), then add it to this list.
 */
import type { Scenario } from '../scenario.js'
import { concurrency } from './concurrency.js'
import { detection } from './detection.js'
import { estimate } from './estimate.js'
import { firstBuilds } from './first-builds.js'
import { idleStart } from './idle-start.js'
import { jobs } from './jobs.js'
import { jsonDepth } from './json-depth.js'
import { memory } from './memory.js'
import { outcome } from './outcome.js'
import { reportBudget } from './report-budget.js'
import { requests } from './requests.js'
import { summaryMemory } from './summary-memory.js'
import { upload } from './upload.js'

export const SCENARIOS: readonly Scenario[] = [
  idleStart,
  firstBuilds,
  estimate,
  detection,
  requests,
  memory,
  summaryMemory,
  concurrency,
  outcome,
  jobs,
  jsonDepth,
  reportBudget,
  upload
]

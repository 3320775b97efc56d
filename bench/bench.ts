/**
 * npm run bench [-- FLAGS]: measures what the action costs its users (time
 * on the runner, load on Jenkins) against the test server with Jenkins'
 * realistic settings, side by side with a baseline that does what the common
 * alternatives do (bench/baseline.mjs), and writes the report to
 * BENCHMARKS.md. Both sides run as Node 24 child processes, ours as the
 * runner runs it (dist/index.js: run `npm run build` first).
 *
 * Flags:
 *   --quick          fewer runs and shorter builds (about 2 minutes): a smoke
 *                    check; writes $TMPDIR/jenkins-build-action-bench-quick.md
 *   --only a,b       run only the named scenarios (see --list), in list order;
 *                    writes $TMPDIR/jenkins-build-action-bench-partial.md
 *   --out FILE       write the report to FILE instead
 *   --list           list the scenarios and exit
 *   --help           this text
 * Only a full run of every scenario writes BENCHMARKS.md, the record. A
 * scenario that throws gets a failed row, the others still run, the report
 * is written (not as the record) and the bench exits 1.
 *
 * Layout: bench/scenarios/ (one file per scenario, listed in index.ts),
 * bench/runners/ (the two sides' processes and the test servers),
 * bench/report.ts (BENCHMARKS.md), bench/stats.ts and figures.ts (numbers).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { gzipSync } from 'node:zlib'
import { BUNDLE, ROOT } from '../scripts/action-runner.js'
import { failedSection, renderReport } from './report.js'
import { closeServers } from './runners/jenkins.js'
import { killChildren, killChildrenOnExit, NODE } from './runners/processes.js'
import { BASELINE_SCRIPT } from './runners/runs.js'
import type { BenchContext, Section } from './scenario.js'
import { SCENARIOS } from './scenarios/index.js'
import { log } from './util.js'

const HELP = /^ \* (npm run bench[\s\S]*?)\n \*\n \* Layout/m

/** A bad flag: printed without a stack trace. */
class UsageError extends Error {}

function parseArgsOrThrow<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config)
  } catch (error) {
    throw new UsageError(
      `bench: ${error instanceof Error ? error.message : String(error)} (see --help)`
    )
  }
}

function options(): { quick: boolean; only?: string[]; out?: string; list: boolean } {
  const { values } = parseArgsOrThrow({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      out: { type: 'string' },
      list: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false }
    }
  })
  if (values.help) {
    const doc = HELP.exec(readFileSync(new URL(import.meta.url), 'utf8'))?.[1] ?? ''
    process.stdout.write(`${doc.replace(/^ \* ?/gm, '')}\n`)
    process.exit(0)
  }
  const only = values.only
    ?.split(',')
    .map(name => name.trim())
    .filter(Boolean)
  const unknown = only?.filter(name => !SCENARIOS.some(s => s.name === name)) ?? []
  if (unknown.length) {
    throw new UsageError(
      `bench: --only: no scenario ${unknown.join(', ')}; expected a comma-separated list of ${SCENARIOS.map(s => s.name).join(', ')}`
    )
  }
  return { quick: values.quick, only, out: values.out, list: values.list }
}

async function main(): Promise<void> {
  const opts = options()
  if (opts.list) {
    for (const s of SCENARIOS) console.log(`${s.name.padEnd(12)} ${s.summary}`)
    return
  }
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build`)
  killChildrenOnExit()
  const startLoad = os
    .loadavg()
    .map(v => v.toFixed(2))
    .join(' ')
  const chosen = SCENARIOS.filter(s => !opts.only || opts.only.includes(s.name))
  const partial = chosen.length < SCENARIOS.length
  const bundle = readFileSync(BUNDLE)
  const context: BenchContext = { quick: opts.quick, node: NODE, bundleBytes: bundle.length }

  const began = Date.now()
  log(
    `${opts.quick ? 'quick' : 'full'} benchmark (${chosen.map(s => s.name).join(', ')}) under Node ${NODE.version}${NODE.note ? ` (${NODE.note})` : ''}`
  )
  const sections: Array<{ name: string; section: Section }> = []
  const failed: string[] = []
  for (const scenario of chosen) {
    const section = await scenario.run(context).catch((error: unknown) => {
      failed.push(scenario.name)
      log(
        `${scenario.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
      )
      return failedSection(scenario.name, error)
    })
    sections.push({ name: scenario.name, section })
  }
  const benchSeconds = Math.round((Date.now() - began) / 1000)

  const { table, markdown } = renderReport({
    context,
    sections,
    only: partial ? chosen.map(s => s.name) : undefined,
    benchSeconds,
    startLoad,
    bundleGzipBytes: gzipSync(bundle).length,
    baselineBytes: statSync(BASELINE_SCRIPT).size
  })
  console.log(table)
  // A quick, partial or failed run must not overwrite the record.
  const file = opts.out
    ? resolve(opts.out)
    : opts.quick
      ? join(os.tmpdir(), 'jenkins-build-action-bench-quick.md')
      : partial || failed.length
        ? join(os.tmpdir(), 'jenkins-build-action-bench-partial.md')
        : join(ROOT, 'BENCHMARKS.md')
  writeFileSync(file, markdown)
  log(`wrote ${file} (${benchSeconds} s)`)
  if (failed.length) {
    log(`failed: ${failed.join(', ')} (their rows say why)`)
    process.exitCode = 1
  }
}

main()
  .catch(error => {
    console.error(
      error instanceof UsageError
        ? error.message
        : error instanceof Error
          ? (error.stack ?? error.message)
          : String(error)
    )
    process.exitCode = 1
  })
  .finally(async () => {
    killChildren()
    await closeServers()
  })

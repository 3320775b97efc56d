/**
 * BENCHMARKS.md: the machine and settings, one results table, the
 * scenarios' own sub-sections, their notes and every missed target with its
 * reason. Each scenario supplies its part (a Section); this file only lays
 * them out, in scenario order, around what no scenario owns (the machine,
 * the two sides, the bundle size).
 */
import os from 'node:os'
import type { BenchContext, Row, Section } from './scenario.js'
import { NODE24 } from './runners/processes.js'
import { DEFAULT_EXECUTORS, QUIET_PERIOD_SEC } from './runners/jenkins.js'
import { BASELINE_INTERVAL_MS } from './runners/runs.js'
import { TODAY_REF } from './runners/today.js'
import { markdownTable } from './stats.js'
import { DEFAULT_END_GAP } from '../test-server/index.js'

export interface ReportInput {
  context: BenchContext
  /** Each scenario that ran, by name, in order. */
  sections: ReadonlyArray<{ name: string; section: Section }>
  /** Set when `--only` left some scenarios out. */
  only?: readonly string[]
  benchSeconds: number
  /** os.loadavg() when the bench began, formatted. */
  startLoad: string
  bundleGzipBytes: number
  baselineBytes: number
}

/** `a`, `a and b`, `a, b and c`. */
function andList(items: readonly string[]): string {
  return items.length <= 1
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

function machine(input: ReportInput): string[] {
  const { node, quick } = input.context
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
  const mode = quick
    ? '`--quick` (fewer runs, shorter builds: a smoke check, not the record)'
    : 'full'
  const only = input.only
    ? `; only ${input.only.map(n => `\`${n}\``).join(', ')} (a partial run, not the record)`
    : ''
  return [
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.availableParallelism()} CPU(s) (${cpu}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB memory, ${os.type()} ${os.release()}; load average at start ${input.startLoad}`,
    `- Bench host: Node ${process.version}; both sides ran under Node ${node.version} (${node.path === NODE24 ? 'tools/node24, as action.yml declares node24' : 'the machine’s Node'})`,
    ...(node.note ? [`- **Note:** ${node.note}`] : []),
    `- Mode: ${mode}${only}`,
    `- Bench wall time: ${input.benchSeconds} s`
  ]
}

/** The settings no scenario owns: the server, our side, the baseline. */
function commonSettings(input: ReportInput): string[] {
  const onDefault = input.sections.filter(s => s.section.executors === undefined)
  const widened = input.sections.filter(s => s.section.executors !== undefined)
  const executors = [
    ...(onDefault.length
      ? [
          `${DEFAULT_EXECUTORS} executors (Jenkins' default) for the ${andList(onDefault.map(s => s.name))} scenario${onDefault.length > 1 ? 's' : ''}`
        ]
      : []),
    ...(widened.length
      ? [
          `as many executors as builds run at once${onDefault.length ? ' elsewhere' : ''} (${widened.map(s => `${s.name}: ${s.section.executors}`).join(', ')}), so no build waits for an executor`
        ]
      : [])
  ].join('; ')
  return [
    `- Test server (in the bench process, loopback only): quiet period ${QUIET_PERIOD_SEC} s (Jenkins' default), ${executors}. Password authentication: every POST needs the crumb and its session cookie, as in the seed document. Builds end the way Jenkins ends them (test-server/model/build.ts, from Run.execute and WorkflowRun.finish): \`building\` turns false, \`Finished: RESULT\` is written ${gap(DEFAULT_END_GAP.finishedAfterMs)} later (Jenkins' listeners run meanwhile), and the log is closed ${gap(DEFAULT_END_GAP.closedAfterMs)} after that; only then does progressiveText stop sending \`X-More-Data: true\`. Detection delays count from \`building: false\`.`,
    `- Ours: \`dist/index.js\` (${input.context.bundleBytes} bytes) run as the runner runs it (\`scripts/action-runner.ts\`), inputs url/user/token/job/parameters, everything else at its action.yml default (log on, wait true), unless a row says otherwise.`,
    `- Baseline: \`bench/baseline.mjs\`, its own Node process: GET \`crumbIssuer/api/xml?xpath=concat(//crumbRequestField,":",//crumb)\`, POST \`buildWithParameters\` without \`delay\` (the quiet period applies), then every ${BASELINE_INTERVAL_MS / 1000} s GET \`lastBuild/api/json\` until \`result\` is non-null (the seed's recipe reads "the result of the last build"; for these freestyle jobs that is the same moment as \`building: false\`). It keeps the session cookie (curl -c/-b), without which the crumb is refused since Jenkins 2.176.2, and it waits one interval before its first look, since right after the trigger \`lastBuild\` is still the previous build. It uses GET where the seed shows POST for \`lastBuild/api/json\`: Jenkins serves both (jenkins-api.md 5.4), at the same cost. It does not stream the console.`
  ]
}

function gap(ms: number | [number, number]): string {
  return typeof ms === 'number' ? `${ms} ms` : `${ms[0]}–${ms[1]} ms`
}

/** Measured once per bench, not by a scenario: what the runner downloads. */
function bundleRow(input: ReportInput): Row {
  return {
    metric: 'bundle size (dist/index.js)',
    ours: `${(input.context.bundleBytes / 1024).toFixed(0)} KiB (${(input.bundleGzipBytes / 1024).toFixed(0)} KiB gzip)`,
    baseline: `${(input.baselineBytes / 1024).toFixed(1)} KiB`,
    ratio: '',
    target: '',
    met: undefined
  }
}

/**
 * The part of a scenario that threw: one failed row and a note with the
 * error's first line, so the other scenarios' figures are still written.
 */
export function failedSection(name: string, error: unknown): Section {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
  return {
    settings: [],
    rows: [
      {
        metric: `${name}: the scenario failed`,
        ours: 'no figures',
        baseline: '',
        ratio: '',
        target: 'runs to its end',
        met: false,
        missedBy: 'the whole scenario',
        why: message
      }
    ],
    notes: [`- **${name}** failed before its figures were taken: ${message}`]
  }
}

/** The results table alone (also printed on stdout) and the whole of BENCHMARKS.md. */
export function renderReport(input: ReportInput): { table: string; markdown: string } {
  const sections = input.sections.map(s => s.section)
  const rows = [...sections.flatMap(s => s.rows), bundleRow(input)]
  const withToday = rows.some(row => row.today !== undefined)
  const table = markdownTable(
    [
      'metric',
      'ours',
      ...(withToday ? ['today (before #10)'] : []),
      'baseline',
      'ratio',
      'target',
      'met?'
    ],
    rows.map(row => [
      row.metric,
      row.ours,
      ...(withToday ? [row.today ?? '—'] : []),
      row.baseline,
      row.ratio,
      row.target || '—',
      row.met === undefined ? '—' : row.met ? 'yes' : `**no** (by ${row.missedBy})`
    ])
  )
  const missed = rows.filter(row => row.met === false)
  const markdown = [
    '# Benchmarks',
    '',
    'What the action costs its users — time on the runner (billed by the minute) and load on their Jenkins — measured by `npm run bench` against the Jenkins-compatible test server, side by side in the same run with a baseline that does what the common alternatives do' +
      (withToday
        ? ', and, where a row has it, with the action as it was before its polling was reworked ("today", built from `' +
          TODAY_REF +
          '` by bench/runners/today.ts)'
        : '') +
      '. Figures come from runs; medians and ratios, because the machine is shared and noisy. Ratio = ours ÷ baseline.',
    '',
    ...machine(input),
    '',
    '## Settings',
    '',
    ...commonSettings(input),
    ...sections.flatMap(s => s.settings),
    '',
    '## Results',
    '',
    table,
    ...sections.flatMap(s => (s.details ? ['', ...s.details] : [])),
    '',
    '## Notes',
    '',
    ...sections.flatMap(s => s.notes),
    '',
    '## Missed targets',
    '',
    ...(missed.length === 0
      ? ['None: every target was met in this run.']
      : missed.map(
          row =>
            `- **${row.metric}**: ${row.ours} against ${row.target}, missed by ${row.missedBy}. ${row.why ?? ''}`
        ))
  ].join('\n')
  return { table, markdown: markdown + '\n' }
}

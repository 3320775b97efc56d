/**
 * What bounding JSON nesting costs (src/jenkins/transport/json.ts): the linear
 * pre-scan every Jenkins JSON answer goes through before JSON.parse,
 * against JSON.parse of the same text, in this process.
 */
import { MAX_JSON_DEPTH, readJenkinsJson, tooDeepAt } from '../../src/jenkins/transport/json.js'
import { BUILD_PLUGIN_LISTS } from '../../src/jenkins/reads/reads.js'
import type { Scenario, Section } from '../scenario.js'
import { formatMs, median, ratio } from '../stats.js'
import { log } from '../util.js'

/** A large build: many change-log entries (the usual reason a build JSON is big). */
function buildJson(entries: number): string {
  const items = Array.from({ length: entries }, (_, i) => ({
    _class: 'hudson.plugins.git.GitChangeSet',
    affectedPaths: Array.from({ length: 5 }, (_, j) => `src/module-${i % 50}/File${j}.java`),
    commitId: (i * 2654435761).toString(16).padStart(40, '0').slice(0, 40),
    timestamp: 1_700_000_000_000 + i,
    author: { absoluteUrl: `https://ci.example.com/user/dev${i % 40}`, fullName: `Dev ${i % 40}` },
    authorEmail: `dev${i % 40}@example.com`,
    comment: `Fix "${i}" in module ${i % 50}: a commit message long enough to be typical\n\nwith a body line {${i}} [${i}]\n`,
    msg: `Fix "${i}" in module ${i % 50}`
  }))
  return JSON.stringify({
    _class: 'org.jenkinsci.plugins.workflow.job.WorkflowRun',
    actions: [
      {
        _class: 'hudson.model.CauseAction',
        causes: [{ shortDescription: 'Started by user admin' }]
      },
      {
        _class: 'hudson.model.ParametersAction',
        parameters: Array.from({ length: 50 }, (_, i) => ({ name: `P${i}`, value: `v${i}` }))
      }
    ],
    building: false,
    number: 42,
    result: 'SUCCESS',
    changeSets: [{ _class: 'hudson.plugins.git.GitChangeSetList', items, kind: 'git' }]
  })
}

/** A build JSON carrying one action nested `depth` levels deep, first among its actions. */
function deepActionJson(entries: number, depth: number): string {
  const text = buildJson(entries)
  const at = text.indexOf('"actions":[') + '"actions":['.length
  const deep = `{"_class":"hudson.model.DeepAction","nested":${'['.repeat(depth)}${']'.repeat(depth)}},`
  return text.slice(0, at) + deep + text.slice(at)
}

/** The scanner's worst case: no strings to skip, a bracket every few characters. */
function bracketsJson(bytes: number): string {
  const row = '[[1,2],[3,{"a":[4]}],5],'
  return `[${row.repeat(Math.floor(bytes / row.length))}0]`
}

function time(repeat: number, fn: () => void): number {
  const samples: number[] = []
  for (let i = 0; i < repeat; i++) {
    const start = process.hrtime.bigint()
    fn()
    samples.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  return median(samples)
}

export const jsonDepth: Scenario = {
  name: 'json-depth',
  summary: 'the JSON nesting pre-scan against JSON.parse, on a large build JSON',
  async run({ quick }): Promise<Section> {
    const repeat = quick ? 5 : 21
    const cases = [
      { name: 'a build JSON with a large change log', text: buildJson(quick ? 5_000 : 25_000) },
      { name: 'brackets and numbers only (the pre-scan’s worst case)', text: bracketsJson(10e6) }
    ]
    const rows: Section['rows'] = []
    for (const { name, text } of cases) {
      log(`json-depth: ${name}`)
      const mb = (Buffer.byteLength(text) / 1e6).toFixed(1)
      // Warm both up, and check the scan finds nothing too deep in them.
      if (tooDeepAt(text) !== -1) throw new Error(`bench: ${name} is nested too deep`)
      JSON.parse(text)
      const scan = time(repeat, () => tooDeepAt(text))
      const parse = time(repeat, () => JSON.parse(text))
      rows.push({
        metric: `JSON depth pre-scan, ${name} (${mb} MB), median`,
        ours: formatMs(scan),
        baseline: `${formatMs(parse)} (JSON.parse)`,
        ratio: ratio(scan, parse),
        target: '',
        met: undefined
      })
    }
    // What a build read pays when one action is a million levels deep: the
    // scan, the cut and one JSON.parse of the rest, against JSON.parse of it all.
    const deepName = 'a build JSON with one action 1,000,000 levels deep, read without it'
    log(`json-depth: ${deepName}`)
    const deep = deepActionJson(quick ? 5_000 : 25_000, 1_000_000)
    const options = { droppable: BUILD_PLUGIN_LISTS }
    if (readJenkinsJson(deep, options).dropped.length !== 1) {
      throw new Error('bench: the deep action was not left out')
    }
    const read = time(repeat, () => readJenkinsJson(deep, options))
    const parseDeep = time(repeat, () => JSON.parse(deep))
    rows.push({
      metric: `JSON read, ${deepName} (${(Buffer.byteLength(deep) / 1e6).toFixed(1)} MB), median`,
      ours: formatMs(read),
      baseline: `${formatMs(parseDeep)} (JSON.parse)`,
      ratio: ratio(read, parseDeep),
      target: '',
      met: undefined
    })
    return {
      settings: [
        `- JSON depth: \`tooDeepAt\` (src/jenkins/transport/json.ts, bound ${MAX_JSON_DEPTH} levels) and \`JSON.parse\` of the same text, ${repeat} times each in the bench process (Node ${process.version}), on a build JSON with a large change log and on 10 MB of brackets and numbers; \`readJenkinsJson\` with the build's droppable lists on that build JSON with one action a million levels deep.`
      ],
      rows,
      notes: [
        '- JSON depth: the pre-scan is what every Jenkins JSON answer pays before JSON.parse (responses.ts, the test report pages); its ratio to JSON.parse is the share it adds to reading an answer. It skips strings with indexOf, so text that is mostly strings (a build JSON) costs it least.',
        '- JSON depth: a build whose action is a million levels deep is read in one scan that cuts the action out, then one JSON.parse of the rest: its ratio to JSON.parse of the whole text (which V8 does without recursion, but whose value nothing could walk) shows the cost stays linear.'
      ]
    }
  }
}

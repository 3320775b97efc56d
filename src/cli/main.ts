/**
 * The jenkins-build command: the action run from a terminal, through the
 * action's own bundle rather than a second copy of its logic. It starts
 * dist/index.js as the runner starts a `uses:` step (step.ts, which the
 * end-to-end tests use too), then the post step with the state the main step
 * saved, renders their workflow commands for the terminal (render.ts), and
 * exits with the step's status.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readActionInputs, type ActionInput } from './action-yml.js'
import {
  parseCommandLine,
  SECRET_INPUTS,
  STDOUT,
  stepInputs,
  terminalWording,
  UsageError,
  type CommandLine
} from './args.js'
import { interruptedStatus, Output, SIGNALS, StepCanceller } from './cancel-step.js'
import { helpText } from './help.js'
import { Redaction } from '../util/redaction.js'
import { StepLog } from './render.js'
import { installedNode24, startStep, type StepResult } from './step.js'
import { errorText } from '../util/error-text.js'
import { State } from '../util/constants.js'

/** The clone the command runs from: src/cli/ and dist/cli/ both sit two levels down. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Variables the command owns or the runner sets per step: never inherited from the caller. */
const NOT_INHERITED =
  /^(INPUT_|STATE_|GITHUB_(OUTPUT|STATE|ENV|PATH|STEP_SUMMARY|WORKSPACE|EVENT_NAME|EVENT_PATH)$|RUNNER_(DEBUG|TEMP)$|JENKINS_(URL|USER|TOKEN|JOB_TOKEN)$)/

/** The outputs a plain run ends with, in this order, when the step set them; --json has them all. */
const MAIN_OUTPUTS = ['result', 'build-number', 'build-url', 'tests-failed']

/** Runs the command; resolves to its exit status. */
export async function run(argv: readonly string[]): Promise<number> {
  const actionYml = join(ROOT, 'action.yml')
  const bundle = join(ROOT, 'dist', 'index.js')
  const missing = [actionYml, bundle].find(path => !existsSync(path))
  if (missing) {
    return refuse(
      `${missing} is missing: run it from a clone of the action, after 'npm ci' (and 'npm run build' for dist/).`
    )
  }
  const inputs = readActionInputs(actionYml)
  let line: CommandLine
  try {
    line = parseCommandLine(argv, inputs, process.env)
    if (!line.help && !line.given.url) {
      throw new UsageError('no Jenkins URL: give --url URL or set JENKINS_URL')
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    const status = refuse(`${error.message}\nSee 'jenkins-build --help' for the flags.`)
    // --json promises an object on stdout, even when the command line is wrong.
    if (argv.includes('--json'))
      process.stdout.write(`${JSON.stringify({ error: error.message })}\n`)
    return status
  }
  if (line.help) {
    process.stdout.write(helpText(inputs, Math.min(100, process.stdout.columns ?? 100)))
    return 0
  }
  const node =
    installedNode24(ROOT) ??
    (Number(process.versions.node.split('.')[0]) >= 20 ? process.execPath : undefined)
  if (!node) {
    return refuse(
      `the action needs Node 20 or newer to run (this is ${process.version}); 'npm run node24' installs Node 24 into tools/node24, which the command then uses.`
    )
  }
  return runSteps(line, inputs, node, bundle)
}

/** Says on stderr why the command cannot run: its status is 2. */
function refuse(why: string): number {
  process.stderr.write(`jenkins-build: ${why}\n`)
  return 2
}

/** The main step, then the post step (the runner's `post-if: always()`), then the outputs. */
async function runSteps(
  line: CommandLine,
  inputs: readonly ActionInput[],
  node: string,
  bundle: string
): Promise<number> {
  const values = stepInputs(inputs, line.given, process.env)
  // The runner masks the workflow's secrets from the first line.
  const masker = new Redaction('runner')
  for (const name of SECRET_INPUTS) masker.add(values[name] ?? '')
  const canceller = new StepCanceller(text => say.note(text))
  // A reader that went away (`| head`) cancels the main step as Ctrl+C does:
  // a step left running would leave its Jenkins build running.
  const stdout = new Output('stdout', process.stdout, canceller.outputClosed)
  const stderr = new Output('stderr', process.stderr, canceller.outputClosed)
  // stdout holds what was asked for instead of the log: the JSON, or the summary (`--summary -`).
  const logOutput = line.json || line.summary === STDOUT ? stderr : stdout
  const color = logOutput.stream.isTTY === true && logOutput.stream.hasColors?.() === true
  const options = { verbose: line.verbose, color, wording: terminalWording(inputs, line) }
  // The command's own lines go where the log goes, or to stderr once that one is closed.
  const say = new StepLog(
    text => (logOutput.closed === undefined ? logOutput : stderr).write(text),
    masker,
    options
  )
  for (const warning of line.warnings) say.note(`Warning: ${warning}`, 'warning')
  if (line.verbose) say.note(`Running ${bundle} under ${node}`, 'debug')

  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !NOT_INHERITED.test(key))),
    RUNNER_DEBUG: line.verbose ? '1' : undefined
  }
  /** The main step, or the post step given the `state` the main step saved. */
  const step = async (state?: Record<string, string>) => {
    // A post step that has nothing to stop only says so: only its annotations show.
    const quiet = state !== undefined && !line.verbose && !postHasWork(state)
    // Once the log's reader went away (`| head`), the step's annotations
    // still reach stderr: they say what its cancellation stopped.
    const log = new StepLog(
      (text, style) => {
        const annotation = style !== undefined && style !== 'debug' && style !== 'heading'
        if (quiet && !annotation) return
        if (logOutput.closed === undefined) logOutput.write(text)
        else if (annotation) stderr.write(text)
      },
      masker,
      options
    )
    const running = startStep({
      node,
      bundle,
      inputs: values,
      env,
      // Not a pull request: no PR context from a terminal (GITHUB_REPOSITORY and
      // GITHUB_SHA, when set, still give `commit-status` its commit).
      event: { name: 'workflow_dispatch', payload: {} },
      state,
      workspace: process.cwd(),
      detached: process.platform !== 'win32'
    })
    // The main step says the signal it got (follow/cancel.ts), and a closed output cancels it.
    canceller.follow(running.child, { main: state === undefined })
    running.child.stdout?.on('data', (chunk: string) => log.feed('stdout', chunk))
    running.child.stderr?.on('data', (chunk: string) => log.feed('stderr', chunk))
    const result = await running.done.finally(() => log.end())
    return { ...result, errors: log.errors }
  }
  let main: Awaited<ReturnType<typeof step>>
  let post: StepResult | undefined
  try {
    main = await step()
    // A SIGINT the step got before or after its handler (follow/cancel.ts) ended it without a word.
    if (main.signal === 'SIGINT') say.note('Received SIGINT: the step ended on it at once.')
    // The action saves its first state before anything else: a main step that
    // saved none never ran the action, and a post step without state would run
    // it as a main step.
    if (Object.keys(main.state).length > 0) {
      if (line.verbose)
        say.note('Post step: the bundle again, with the state the main step saved.', 'debug')
      post = await step(main.state)
      if (line.verbose) say.note(`Post step: exit status ${post.code ?? post.signal}.`, 'debug')
    }
  } finally {
    canceller.close()
  }
  // Killed by a signal (no code) is a failure; a failed post step fails the job too.
  let code = (main.code ?? 1) || (post ? (post.code ?? 1) : 0)

  if (line.summary !== undefined) {
    const summary = masker.redact(main.summary + (post?.summary ?? ''))
    try {
      if (line.summary === STDOUT) stdout.write(summary)
      else writeFileSync(line.summary, summary)
    } catch (error) {
      say.note(
        `Error: could not write the summary to ${line.summary}: ${errorText(error)}`,
        'error'
      )
      code ||= 1
    }
  }
  if (line.json) {
    const outputs: Record<string, string> = Object.fromEntries(
      Object.entries(main.outputs).map(([name, value]) => [name, masker.redact(value)])
    )
    // Why the step failed, as its last error said it; outputs hold no such field.
    if (main.code !== 0) {
      outputs.error =
        main.errors.at(-1) ??
        `the step ended ${main.signal ? `by ${main.signal}` : `with exit status ${main.code}`}`
    }
    stdout.write(`${JSON.stringify(outputs, null, 2)}\n`)
  } else if (!canceller.interruption) {
    // The main outputs the step set, as `  name  value` lines under a heading.
    const set = MAIN_OUTPUTS.filter(name => (main.outputs[name] ?? '') !== '')
    const width = Math.max(...set.map(name => name.length))
    if (set.length > 0) say.note('Outputs (--json prints every one):')
    for (const name of set) say.note(`  ${name.padEnd(width)}  ${main.outputs[name] ?? ''}`)
  }
  return canceller.interruption ? interruptedStatus(canceller.interruption) : code
}

/**
 * Whether the post step has anything to do or tell (src/post.ts): work a
 * main step that did not finish left running, to stop, or work it left
 * running on purpose when it failed. Otherwise it only says there was
 * nothing to stop.
 */
function postHasWork(state: Readonly<Record<string, string>>): boolean {
  return state[State.Done] === 'false' || (state[State.LeftRunning] ?? '') !== ''
}

/**
 * Ends the process with `status`. After a signal, the command ends by that
 * signal once its work is done, as a shell expects of a program that handles
 * it ("wait and cooperative exit"): a script's loop then stops on Ctrl+C, and
 * `npx`, which re-raises a signal its command died of, ends with the same
 * status as `node dist/cli/index.js` (130 for Ctrl+C).
 */
export function exitWith(status: number): void {
  process.exitCode = status
  const signal = SIGNALS.find(s => interruptedStatus({ signal: s }) === status)
  if (!signal || process.platform === 'win32') return
  process.removeAllListeners(signal)
  process.kill(process.pid, signal)
}

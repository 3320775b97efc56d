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
  stepInputs,
  UsageError,
  type CommandLine
} from './args.js'
import { StepCanceller } from './cancel-step.js'
import { helpText } from './help.js'
import { Masker } from './masker.js'
import { StepLog } from './render.js'
import { installedNode24, startStep, type StepResult } from './step.js'

/** The clone the command runs from: src/cli/ and dist/cli/ both sit two levels down. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Variables the command owns or the runner sets per step: never inherited from the caller. */
const NOT_INHERITED =
  /^(INPUT_|STATE_|GITHUB_(OUTPUT|STATE|ENV|PATH|STEP_SUMMARY)$|RUNNER_DEBUG$|JENKINS_(URL|USER|TOKEN)$)/

/** Where the command writes. */
export interface Terminal {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; hasColors?: () => boolean }
  stderr: NodeJS.WritableStream & { isTTY?: boolean; hasColors?: () => boolean }
  env: Readonly<Record<string, string | undefined>>
}

const PROCESS_TERMINAL: Terminal = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env
}

/** Runs the command; resolves to its exit status. */
export async function run(
  argv: readonly string[],
  io: Terminal = PROCESS_TERMINAL
): Promise<number> {
  const actionYml = join(ROOT, 'action.yml')
  const bundle = join(ROOT, 'dist', 'index.js')
  for (const path of [actionYml, bundle]) {
    if (!existsSync(path)) {
      io.stderr.write(
        `jenkins-build: ${path} is missing: run it from a clone of the action, after 'npm ci' (and 'npm run package' for dist/).\n`
      )
      return 2
    }
  }
  const inputs = readActionInputs(actionYml)
  let line: CommandLine
  try {
    line = parseCommandLine(argv, inputs, io.env)
    if (!line.help && !line.given.url) {
      throw new UsageError('no Jenkins URL: give --url URL or set JENKINS_URL')
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    io.stderr.write(`jenkins-build: ${error.message}\nSee 'jenkins-build --help' for the flags.\n`)
    return 2
  }
  if (line.help) {
    io.stdout.write(
      helpText(inputs, Math.min(100, (io.stdout as { columns?: number }).columns ?? 100))
    )
    return 0
  }
  const node = installedNode24(ROOT) ?? currentNode()
  if (!node) {
    io.stderr.write(
      `jenkins-build: the action needs Node 20 or newer to run (this is ${process.version}); 'npm test' installs Node 24 into tools/node24, which the command then uses.\n`
    )
    return 2
  }
  return runSteps({ line, inputs, node, bundle, io })
}

function currentNode(): string | undefined {
  return Number(process.versions.node.split('.')[0]) >= 20 ? process.execPath : undefined
}

interface Run {
  line: CommandLine
  inputs: readonly ActionInput[]
  node: string
  bundle: string
  io: Terminal
}

/** The main step, then the post step (the runner's `post-if: always()`), then the outputs. */
async function runSteps({ line, inputs, node, bundle, io }: Run): Promise<number> {
  const values = stepInputs(inputs, line.given, io.env)
  // The runner masks the workflow's secrets from the first line.
  const masker = new Masker()
  for (const name of SECRET_INPUTS) masker.add(values[name] ?? '')
  const logStream = line.json ? io.stderr : io.stdout
  const color = logStream.isTTY === true && logStream.hasColors?.() === true
  const options = { verbose: line.verbose, color }
  const say = new StepLog(text => logStream.write(text), masker, options)
  for (const warning of line.warnings) say.note(`Warning: ${warning}`, 'warning')
  if (line.verbose) say.note(`Running ${bundle} under ${node}`, 'debug')

  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(io.env)) {
    if (value !== undefined && !NOT_INHERITED.test(key)) env[key] = value
  }
  if (line.verbose) env.RUNNER_DEBUG = '1'
  const canceller = new StepCanceller(text => say.note(text))
  const step = (state?: Record<string, string>): Promise<StepResult> => {
    const log = new StepLog(text => logStream.write(text), masker, options)
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
    canceller.follow(running.child)
    running.child.stdout?.on('data', (chunk: string) => log.feed('stdout', chunk))
    running.child.stderr?.on('data', (chunk: string) => log.feed('stderr', chunk))
    return running.done.finally(() => log.end())
  }
  let main: StepResult
  let post: StepResult | undefined
  try {
    main = await step()
    // The action saves its first state before anything else: a main step that
    // saved none never ran the action, and a post step without state would run
    // it as a main step.
    if (Object.keys(main.state).length > 0) post = await step(main.state)
  } finally {
    canceller.close()
  }
  let code = status(main) || (post ? status(post) : 0)

  if (line.summary !== undefined) {
    try {
      writeFileSync(line.summary, masker.mask(main.summary + (post?.summary ?? '')))
    } catch (error) {
      say.note(
        `Error: could not write the summary to ${line.summary}: ${(error as Error).message}`,
        'error'
      )
      code ||= 1
    }
  }
  if (line.json) {
    const outputs = Object.fromEntries(
      Object.entries(main.outputs).map(([name, value]) => [name, masker.mask(value)])
    )
    io.stdout.write(`${JSON.stringify(outputs, null, 2)}\n`)
  }
  return code
}

/** A step's exit status; killed by a signal is a failure. A failed post step fails the job too. */
function status(step: StepResult): number {
  return step.code ?? 1
}

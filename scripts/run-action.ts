/**
 * Runs the bundled action once by hand, as the runner runs a `uses:` step:
 * the main step, then the post step with the state the main step saved.
 *
 *   npx tsx scripts/run-action.ts url=http://127.0.0.1:8080 user=admin token=... job=hello wait=started
 *
 * Arguments are `input=value` (split on the first `=`; action.yml supplies the
 * rest). The step's log goes to stderr as it runs; its outputs are printed on
 * stdout as one JSON object; the exit status is the main step's. Used by
 * .github/jenkins/run-checks.sh to repeat the real-Jenkins workflow by hand.
 */
import { runtimes, startAction, type ActionRun } from './action-runner.js'

function usage(message: string): never {
  console.error(`${message}\nusage: tsx scripts/run-action.ts input=value...`)
  process.exit(2)
}

const inputs: Record<string, string> = {}
for (const arg of process.argv.slice(2)) {
  const eq = arg.indexOf('=')
  if (eq <= 0) usage(`not input=value: ${arg}`)
  inputs[arg.slice(0, eq)] = arg.slice(eq + 1)
}
if (Object.keys(inputs).length === 0) usage('no inputs given')

// The runner runs node24 actions under Node 24: use it when tools/node24 has it.
const node = runtimes().at(-1)?.path
// Not a pull request: the commit status and PR context stay out of a run by hand.
const event = { name: 'workflow_dispatch', payload: {} }
// The action bounds itself with its `timeout` input; this only catches a hung process.
const killAfterMs = 3 * 60 * 60 * 1000

async function step(state?: Record<string, string>): Promise<ActionRun> {
  const running = startAction(inputs, { node, event, state, killAfterMs })
  running.child.stdout?.on('data', (chunk: string) => process.stderr.write(chunk))
  running.child.stderr?.on('data', (chunk: string) => process.stderr.write(chunk))
  return running.done
}

const main = await step()
process.stderr.write(`--- main step exited with ${main.code ?? main.signal}; post step:\n`)
await step(main.state)
process.stdout.write(`${JSON.stringify(main.outputs)}\n`)
process.exitCode = main.code ?? 1

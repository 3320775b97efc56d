/**
 * npm run demo: starts the Jenkins-compatible test server with sample jobs,
 * runs the bundled action against one of them the way a workflow would, and
 * shows what the step log, the outputs and the job summary would show.
 *
 * The step's temporary folder (its workspace and file-command files) is
 * removed when the step ends, whatever its status; Ctrl+C cancels the step
 * as the runner cancels a workflow and waits for it to end, so nothing is
 * left behind in the temporary directory.
 */
import { BUNDLE, PR_EVENT, startAction } from './action-runner.js'
import { existsSync } from 'node:fs'
import { interruptedStatus, StepCanceller } from '../src/cli/cancel-step.js'
import { sampleJobs, startJenkins } from '../test-server/index.js'

// Bold rules on a terminal only: piped into a file or a pager, escapes are noise.
const bold = process.stdout.isTTY && !process.env.NO_COLOR
const rule = (title: string): void => {
  const line = `── ${title} ${'─'.repeat(Math.max(0, 70 - title.length))}`
  console.log(bold ? `\n\x1b[1m${line}\x1b[0m` : `\n${line}`)
}

/** The pull request this run plays (the runner's event payload): its number and head branch. */
const PR = PR_EVENT.payload.pull_request

async function main(): Promise<void> {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build`)
  // From here on Ctrl+C (SIGINT, SIGTERM, SIGHUP) cancels the step, which then ends and cleans up.
  const canceller = new StepCanceller(text => console.log(`demo: ${text}`))
  try {
    await demo(canceller)
  } finally {
    canceller.close()
  }
  if (canceller.interruption) process.exitCode = interruptedStatus(canceller.interruption)
}

async function demo(canceller: StepCanceller): Promise<void> {
  const jenkins = await startJenkins({
    contextPath: '/jenkins',
    users: [
      { name: 'demo', password: 'demo-password', apiToken: '11d3m0t0k3n0000000000000000000000' }
    ],
    quietPeriodSec: 5,
    jobs: sampleJobs
  })
  try {
    rule('Jenkins-compatible test server')
    console.log(`Listening on ${jenkins.url} (user demo, password authentication: crumb + session)`)
    console.log(
      'Job team/service/deploy: a Pipeline with parameters ENV, BRANCH and PR, five stages, a test report and archived files; its Approve stage waits for a reviewer: the user who started it (demo) proceeds after 6 s.'
    )
    const inputs = {
      url: jenkins.url,
      user: 'demo',
      token: 'demo-password',
      job: 'team/service/deploy',
      parameters: `ENV=dev\nBRANCH=${PR.head.ref}\nPR=${PR.number}`,
      // Its tests fail (UNSTABLE), which this workflow accepts; the summary lists them.
      accept: 'SUCCESS,UNSTABLE',
      artifacts: 'build/libs/*.jar\nbuild/reports/'
    }
    // What the workflow author writes where this run has values: the runner fills them in.
    const written: Partial<Record<keyof typeof inputs, string>> = {
      token: '${{ secrets.JENKINS_TOKEN }}',
      parameters: 'ENV=dev\nBRANCH=${{ github.head_ref }}\nPR=${{ github.event.number }}'
    }
    rule('Workflow step')
    console.log(
      `# In a workflow that runs on pull_request; this run plays pull request #${PR.number} from branch ${PR.head.ref}.`
    )
    console.log('- uses: OWNER/REPO@v1\n  with:')
    for (const [name, value] of Object.entries(inputs)) {
      const shown = written[name as keyof typeof inputs] ?? value
      console.log(
        `    ${name}: ${shown.includes('\n') ? '|\n      ' + shown.split('\n').join('\n      ') : shown}`
      )
    }
    rule('Step log')
    console.log(
      [
        'Lines starting with :: are workflow commands, which the runner consumes:',
        '  ::add-mask:: hides the token from the rest of the log,',
        '  ::group:: folds the Jenkins console, ::stop-commands:: keeps its lines from acting as commands,',
        '  ::error title=…:: annotates the run with each failed test,',
        '  ::debug:: lines show only with step debug logging on (ACTIONS_STEP_DEBUG).',
        ''
      ].join('\n')
    )
    // Interrupted while the server started: there is no step to cancel, so none is started.
    if (canceller.interruption) return
    const running = startAction(inputs, {
      noSummary: false,
      event: PR_EVENT,
      detached: process.platform !== 'win32'
    })
    canceller.follow(running.child)
    const run = await running.done
    process.stdout.write(run.stdout)
    if (run.stderr) process.stdout.write(run.stderr)
    rule(
      `Step ${run.code === 0 ? 'passed' : 'failed'} (exit code ${run.code}) in ${run.durationMs} ms`
    )
    rule('Outputs')
    for (const [name, value] of Object.entries(run.outputs)) {
      console.log(`${name} = ${value.length > 160 ? value.slice(0, 160) + '…' : value}`)
    }
    rule('Job summary (GITHUB_STEP_SUMMARY)')
    console.log("(HTML, which GitHub renders on the workflow run's page.)\n")
    console.log(run.summary)
    rule('Requests the action made to Jenkins, by kind')
    const kinds = new Map<string, number>()
    for (const r of jenkins.requests) kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1)
    console.log([...kinds].map(([k, n]) => `${k}: ${n}`).join(', '))
    if (run.code !== 0) process.exitCode = 1
  } finally {
    await jenkins.close()
  }
}

main().catch(error => {
  console.error(error)
  process.exitCode = 1
})

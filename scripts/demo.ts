/**
 * npm run demo: starts the Jenkins-compatible test server with sample jobs,
 * runs the bundled action against one of them the way a workflow would, and
 * shows what the step log, the outputs and the job summary would show.
 */
import { BUNDLE, runAction } from './action-runner.js'
import { existsSync } from 'node:fs'
import { sampleJobs, startJenkins } from '../test-server/index.js'

const rule = (title: string): void =>
  console.log(`\n\x1b[1m── ${title} ${'─'.repeat(Math.max(0, 70 - title.length))}\x1b[0m`)

async function main(): Promise<void> {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run package`)
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
    const inputs = {
      url: jenkins.url,
      user: 'demo',
      token: 'demo-password',
      job: 'team/service/deploy',
      parameters: 'ENV=dev\nPR=17',
      // Its tests fail (UNSTABLE), which this workflow accepts; the summary lists them.
      accept: 'SUCCESS,UNSTABLE',
      artifacts: 'build/libs/*.jar\nbuild/reports/'
    }
    rule('Workflow step')
    console.log('- uses: OWNER/REPO@v1\n  with:')
    for (const [name, value] of Object.entries(inputs)) {
      const shown = name === 'token' ? '${{ secrets.JENKINS_TOKEN }}' : value
      console.log(
        `    ${name}: ${shown.includes('\n') ? '|\n      ' + shown.split('\n').join('\n      ') : shown}`
      )
    }
    rule('Step log')
    console.log(
      '(Lines starting with :: are workflow commands, consumed by the runner: ::add-mask:: hides the token, ::group:: folds the console, ::stop-commands:: keeps console lines from acting as commands.)\n'
    )
    const run = await runAction(inputs, { noSummary: false })
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
    console.log(run.summary)
    rule('Jenkins requests')
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

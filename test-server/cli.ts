/**
 * Starts the test server with the sample jobs until SIGINT/SIGTERM:
 *   npx tsx test-server/cli.ts [--port N] [--context /jenkins] [--csrf on|off]
 *     [--crumb-field NAME] [--quiet-period S] [--executors N] [--hostile TEXT]
 * --hostile serves TEXT (with \n and \r read as line breaks) in front of every
 * text field a client prints: names, display names, why, results, causes.
 */
import { randomBytes } from 'node:crypto'
import { sampleJobs } from './sample-jobs.js'
import { startJenkins } from './server.js'
import type { ServerOptions } from './types.js'

function usage(message: string): never {
  console.error(`${message}
usage: tsx test-server/cli.ts [--port N] [--context /jenkins] [--csrf on|off]
       [--crumb-field NAME] [--quiet-period S] [--executors N] [--hostile TEXT]`)
  process.exit(2)
}

function number(flag: string, value: string | undefined): number {
  const n = Number(value)
  if (value === undefined || !Number.isFinite(n) || n < 0) usage(`${flag} needs a number`)
  return n
}

async function main(): Promise<void> {
  const apiToken = randomBytes(17).toString('hex')
  const options: ServerOptions = {
    jobs: sampleJobs,
    users: [{ name: 'admin', password: 'admin', apiToken, permissions: ['admin'] }]
  }
  const args = process.argv.slice(2)
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]
    const value = args[i + 1]
    i++
    switch (flag) {
      case '--port':
        options.port = number(flag, value)
        break
      case '--context':
        options.contextPath = value ?? usage('--context needs a path')
        break
      case '--csrf':
        if (value !== 'on' && value !== 'off') usage('--csrf takes on or off')
        options.csrf = value === 'on'
        break
      case '--crumb-field':
        options.crumbField = value ?? usage('--crumb-field needs a name')
        break
      case '--quiet-period':
        options.quietPeriodSec = number(flag, value)
        break
      case '--executors':
        options.executors = number(flag, value)
        break
      case '--hostile':
        if (value === undefined) usage('--hostile needs a text')
        options.hostile = { text: value.replace(/\\n/g, '\n').replace(/\\r/g, '\r') }
        break
      default:
        usage(`unknown argument ${flag ?? ''}`)
    }
  }
  const jenkins = await startJenkins(options)
  console.log(`Jenkins test server at ${jenkins.url}/`)
  console.log('user: admin  password: admin')
  console.log(`API token: ${apiToken}`)
  const stop = (): void => {
    void jenkins.close().then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err))
  process.exit(1)
})

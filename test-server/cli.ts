/**
 * Starts the test server with the sample jobs until SIGINT/SIGTERM:
 *   npx tsx test-server/cli.ts [--port N] [--host H] [--context /jenkins]
 *     [--csrf on|off] [--crumb-field NAME] [--quiet-period S] [--executors N]
 *     [--anonymous-read] [--tls DIR] [--auth-proxy 'Name: value']... [--hostile TEXT]
 *
 * --tls DIR makes a test CA and a certificate it signed for the host (and
 * 127.0.0.1, localhost) in DIR and serves https; give the action DIR/ca.pem
 * as `ca-cert`. --auth-proxy puts an authenticating proxy in front that
 * requires the header (repeat it for several).
 * --hostile serves TEXT (with \n and \r read as line breaks) in front of every
 * text field a client prints: names, display names, why, results, causes.
 */
import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { sampleJobs } from './sample-jobs.js'
import { startJenkins } from './server.js'
import { testCertificates } from './tls.js'
import type { ServerOptions } from './types.js'

function usage(message: string): never {
  console.error(`${message}
usage: tsx test-server/cli.ts [--port N] [--host H] [--context /jenkins] [--csrf on|off]
       [--crumb-field NAME] [--quiet-period S] [--executors N] [--anonymous-read]
       [--tls DIR] [--auth-proxy 'Name: value']... [--hostile TEXT]`)
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
  let tlsDir: string | undefined
  let caPath: string | undefined
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]
    if (flag === '--anonymous-read') {
      options.anonymousRead = true
      continue
    }
    const value = args[i + 1]
    i++
    switch (flag) {
      case '--host':
        options.host = value ?? usage('--host needs a name or address')
        break
      case '--tls':
        tlsDir = resolve(value ?? usage('--tls needs a folder for the test CA'))
        break
      case '--auth-proxy': {
        const match = /^([^:\s]+):\s*(.+)$/.exec(value ?? '')
        if (!match) usage("--auth-proxy takes 'Name: value'")
        options.authProxy ??= { headers: {} }
        options.authProxy.headers[match[1] as string] = (match[2] as string).trim()
        break
      }
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
  if (tlsDir !== undefined) {
    const hosts = [...new Set([options.host ?? '127.0.0.1', '127.0.0.1', 'localhost'])]
    const certificates = testCertificates(tlsDir, hosts)
    options.tls = { key: certificates.key, cert: certificates.cert }
    caPath = certificates.caPath
  }
  const jenkins = await startJenkins(options)
  console.log(`Jenkins test server at ${jenkins.url}/`)
  if (caPath) console.log(`Test CA certificate (for the ca-cert input): ${caPath}`)
  if (options.authProxy) {
    console.log(
      `Behind an auth proxy requiring: ${Object.keys(options.authProxy.headers).join(', ')}`
    )
  }
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

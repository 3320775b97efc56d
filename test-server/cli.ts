/**
 * `npm run server`: the Jenkins-compatible test server on the command line,
 * until SIGINT/SIGTERM. Flags: cli-options.ts (HELP, or --help); what it
 * prints once started: cli-banner.ts.
 */
import { HELP, parseCli, UsageError, type CliConfig } from './cli-options.js'
import { requestLine, startupLines } from './cli-banner.js'
import { startJenkins } from './server.js'
import { testCertificates } from './http/tls.js'

function readCommandLine(): CliConfig {
  try {
    return parseCli(process.argv.slice(2))
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    console.error(`test server: ${error.message}\nSee npm run server -- --help for the flags.`)
    process.exit(2)
  }
}

async function main(): Promise<void> {
  const config = readCommandLine()
  if (config.help) {
    console.log(HELP)
    return
  }
  const { options } = config
  let caPath: string | undefined
  if (config.tlsDir !== undefined) {
    const hosts = [...new Set([options.host ?? '127.0.0.1', '127.0.0.1', 'localhost'])]
    const certificates = testCertificates(config.tlsDir, hosts)
    options.tls = { key: certificates.key, cert: certificates.cert }
    caPath = certificates.caPath
  }
  if (config.log) options.onRequest = entry => console.log(requestLine(entry))
  const jenkins = await startJenkins(options).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new Error(
        `port ${options.port} is in use (another test server?): choose another with --port N, or --port 0 for a free one`
      )
    }
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
      throw new Error(`--host ${options.host}: no such address on this machine (${error.code})`)
    }
    throw error
  })
  for (const line of startupLines({ url: jenkins.url, options, job: config.job, caPath })) {
    console.log(line)
  }
  if (config.silent) {
    jenkins.aim({ effect: { type: 'hang' } })
    console.log('Silent (--silent): connections are accepted, and no request is answered.')
  }
  const stop = (): void => {
    void jenkins.close().then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((err: unknown) => {
  console.error(`test server: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})

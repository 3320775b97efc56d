import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { JenkinsClient } from '../../../src/jenkins/client.js'
import { ExchangeLimits, type LimitSettings } from '../../../src/jenkins/transport/limits.js'
import { NetworkFailure } from '../../../src/jenkins/transport/network-errors.js'
import { silentLogger } from '../../fixtures/recording-logger.js'

const SERVER = 'http://ci.example.com'

function settings(extra: Partial<LimitSettings> = {}): LimitSettings {
  return { requestTimeoutMs: 5_000, stallMs: 5_000, stallBytes: 1, ...extra }
}

describe('the lines a client says while Jenkins does not answer', () => {
  /** A loopback server that never answers (or, `answers`, answers Jenkins' 404 at once); a client aimed at it. */
  async function silentJenkins({ answers = false } = {}) {
    const server = createServer((_req, res) => {
      if (answers) res.writeHead(404, { 'X-Jenkins': '2.500' }).end()
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const info: string[] = []
    const controller = new AbortController()
    const client = new JenkinsClient({
      url,
      logger: { ...silentLogger, info: message => info.push(message) },
      requestTimeoutMs: 60_000,
      signal: controller.signal
    })
    // Fake after the connection setup above; the sockets stay real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    const pending: Promise<unknown>[] = []
    return {
      url,
      info,
      get(job: string): Promise<unknown> {
        const request = client.getJob([job]).catch((e: unknown) => e)
        pending.push(request)
        return request
      },
      async stop() {
        controller.abort()
        await Promise.all(pending)
        vi.useRealTimers()
        server.closeAllConnections()
        await new Promise(resolve => server.close(resolve))
      }
    }
  }

  it('says once that the headers have not come after 10 s, and no two lines within 4 s', async () => {
    const jenkins = await silentJenkins()
    jenkins.get('a')
    jenkins.get('b')
    await vi.advanceTimersByTimeAsync(4_000)
    jenkins.get('c')
    // 10 s: one of the requests of then (the job's, the crumb's prefetch) is said, not the others.
    await vi.advanceTimersByTimeAsync(6_000)
    await vi.advanceTimersByTimeAsync(3_999)
    const said = (what: string) =>
      `No answer yet from Jenkins at ${jenkins.url} to ${what} after 10.0 s; waiting up to 60.0 s for it`
    expect(jenkins.info).toHaveLength(1)
    expect([said("job 'a'"), said("job 'b'"), said('the CSRF crumb')]).toContain(jenkins.info[0])
    // 14 s: 'c', 4 s after the first line.
    await vi.advanceTimersByTimeAsync(1)
    expect(jenkins.info.slice(1)).toEqual([said("job 'c'")])
    await jenkins.stop()
  })

  it('says nothing of a request answered before', async () => {
    const jenkins = await silentJenkins({ answers: true })
    expect(await jenkins.get('a')).toMatchObject({ kind: 'not-found' })
    await vi.advanceTimersByTimeAsync(20_000)
    expect(jenkins.info).toEqual([])
    await jenkins.stop()
  })
})

describe('ExchangeLimits: what a silent exchange says', () => {
  it('a shorter headersTimeoutMs cuts the wait for headers, and names that limit', async () => {
    const bounds = new ExchangeLimits(settings({ headersTimeoutMs: 100 }), "job 'a'", SERVER)
    await new Promise(resolve => bounds.signal.addEventListener('abort', resolve))
    const reason = bounds.signal.reason as NetworkFailure
    expect(reason).toBeInstanceOf(NetworkFailure)
    expect(reason.reason).toBe('timeout')
    expect(reason.message).toBe(`No answer from Jenkins at ${SERVER} to job 'a' within 0.1 s`)
  })

  it("a cut by the step's signal says the whole time the request waited, over all its tries", () => {
    const controller = new AbortController()
    const bounds = new ExchangeLimits(
      settings({ signal: controller.signal, attempt: { started: Date.now() - 40_000, number: 3 } }),
      "job 'a'",
      SERVER
    )
    controller.abort()
    expect((bounds.signal.reason as Error).message).toMatch(
      /^Stopped waiting for Jenkins at http:\/\/ci\.example\.com: no answer to job 'a' after 40\.\d s \(3 tries; this one 0\.\d s\)$/
    )
  })

  it('the first try says its own time only', () => {
    const controller = new AbortController()
    const bounds = new ExchangeLimits(
      settings({ signal: controller.signal, attempt: { started: Date.now(), number: 1 } }),
      "job 'a'",
      SERVER
    )
    controller.abort()
    expect((bounds.signal.reason as Error).message).toMatch(/: no answer to job 'a' after 0\.\d s$/)
  })
})

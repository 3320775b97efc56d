import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough, Writable } from 'node:stream'
import nock from 'nock'
import { afterEach, describe, expect, it } from 'vitest'
import { artifactHref } from '../../../src/jenkins/reads/artifacts.js'
import type { ArtifactSink } from '../../../src/jenkins/model/types.js'
import type { ClientOptions } from '../../../src/jenkins/client.js'
import { Interrupted } from '../../../src/jenkins/transport/errors.js'
import {
  AUTH,
  BASE,
  ORIGIN,
  jenkinsError,
  makeClient,
  netError,
  useNock,
  JENKINS_404
} from '../helpers.js'

useNock()

const BUILD = { job: ['team', 'app'], number: 7, url: `${BASE}/job/team/job/app/7/` }
const BUILD_PATH = '/jenkins/job/team/job/app/7'

/** A sink that keeps what it was given, and records commit/discard. */
function memorySinks() {
  const events: string[] = []
  const kept: Buffer[][] = []
  const open = async (): Promise<ArtifactSink> => {
    const chunks: Buffer[] = []
    kept.push(chunks)
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk)
        done()
      }
    })
    events.push('open')
    return {
      stream,
      commit: async () => {
        events.push('commit')
      },
      discard: async () => {
        events.push('discard')
      }
    }
  }
  const last = (): string => Buffer.concat(kept.at(-1) ?? []).toString()
  return { open, events, last }
}

describe('listArtifacts', () => {
  it('asks for relativePath only, with a range one past the limit, and says when it was cut', async () => {
    const { client } = makeClient()
    nock(ORIGIN)
      .get(`${BUILD_PATH}/api/json`)
      .query({ tree: 'artifacts[relativePath]{0,10001}' })
      .matchHeader('authorization', AUTH)
      .reply(200, {
        _class: 'hudson.model.FreeStyleBuild',
        artifacts: [{ relativePath: 'a.txt' }, { relativePath: 'dir/b.bin' }, { nope: 1 }, null]
      })
    expect(await client.listArtifacts(BUILD)).toEqual({
      paths: ['a.txt', 'dir/b.bin'],
      truncated: false
    })
  })

  it('truncated when Jenkins has more than the limit', async () => {
    const { client } = makeClient()
    const artifacts = Array.from({ length: 10_001 }, (_, i) => ({ relativePath: `f${i}` }))
    nock(ORIGIN).get(`${BUILD_PATH}/api/json`).query(true).reply(200, { artifacts })
    const list = await client.listArtifacts(BUILD)
    expect(list.truncated).toBe(true)
    expect(list.paths).toHaveLength(10_000)
  })

  it('a build without artifacts lists none; a missing build is a not-found error', async () => {
    const { client } = makeClient()
    nock(ORIGIN).get(`${BUILD_PATH}/api/json`).query(true).reply(200, { artifacts: [] })
    expect(await client.listArtifacts(BUILD)).toEqual({ paths: [], truncated: false })
    nock(ORIGIN)
      .get(`${BUILD_PATH}/api/json`)
      .query(true)
      .reply(...JENKINS_404)
    const error = await jenkinsError(client.listArtifacts(BUILD), 'not-found')
    expect(error.message).toContain('Build #7')
  })
})

describe('downloadArtifact', () => {
  it('GETs artifact/<each segment encoded> and streams the body into the sink, then commits', async () => {
    const { client } = makeClient()
    const sinks = memorySinks()
    nock(ORIGIN)
      .get(`${BUILD_PATH}/artifact/dist/my%20app/caf%C3%A9%23.txt`)
      .matchHeader('authorization', AUTH)
      .reply(200, 'hello artifact', { 'Content-Type': 'text/plain', 'Content-Length': '14' })
    const done = await client.downloadArtifact(BUILD, 'dist/my app/café#.txt', sinks.open)
    expect(done).toEqual({ bytes: 14, attempts: 1 })
    expect(sinks.events).toEqual(['open', 'commit'])
    expect(sinks.last()).toBe('hello artifact')
  })

  it('artifactHref encodes each segment like Util.rawEncode, keeping the slashes', () => {
    expect(artifactHref('a b/c?d/%e')).toBe('a%20b/c%3Fd/%25e')
  })

  it('a body shorter than its Content-Length is tried again from the start', async () => {
    const { client } = makeClient()
    const sinks = memorySinks()
    nock(ORIGIN)
      .get(`${BUILD_PATH}/artifact/a.bin`)
      .reply(
        200,
        () => {
          const body = new PassThrough()
          body.end('abc')
          return body
        },
        { 'Content-Length': '6' }
      )
    nock(ORIGIN).get(`${BUILD_PATH}/artifact/a.bin`).reply(200, 'abcdef', { 'Content-Length': '6' })
    const done = await client.downloadArtifact(BUILD, 'a.bin', sinks.open)
    expect(done.bytes).toBe(6)
    expect(sinks.events).toEqual(['open', 'discard', 'open', 'commit'])
    expect(sinks.last()).toBe('abcdef')
  })

  it('a connection error before the answer is retried like any read', async () => {
    const { client } = makeClient()
    const sinks = memorySinks()
    nock(ORIGIN).get(`${BUILD_PATH}/artifact/a.bin`).replyWithError(netError('ECONNRESET'))
    nock(ORIGIN).get(`${BUILD_PATH}/artifact/a.bin`).reply(503, 'busy')
    nock(ORIGIN).get(`${BUILD_PATH}/artifact/a.bin`).reply(200, 'ok')
    expect((await client.downloadArtifact(BUILD, 'a.bin', sinks.open)).bytes).toBe(2)
    expect(sinks.events).toEqual(['open', 'commit'])
  })

  it('404: the artifact is gone; nothing is opened', async () => {
    const { client } = makeClient()
    const sinks = memorySinks()
    nock(ORIGIN)
      .get(`${BUILD_PATH}/artifact/gone.txt`)
      .reply(...JENKINS_404)
    const error = await jenkinsError(
      client.downloadArtifact(BUILD, 'gone.txt', sinks.open),
      'not-found'
    )
    expect(error.message).toContain("Artifact 'gone.txt' of build #7 of 'team/app'")
    expect(sinks.events).toEqual([])
  })

  it('an HTML page for a file that is not HTML is a login page, not the artifact', async () => {
    const { client } = makeClient()
    const sinks = memorySinks()
    nock(ORIGIN)
      .get(`${BUILD_PATH}/artifact/app.jar`)
      .reply(200, '<html><body>Sign in</body></html>', { 'Content-Type': 'text/html' })
    await jenkinsError(client.downloadArtifact(BUILD, 'app.jar', sinks.open), 'html')
    expect(sinks.events).toEqual([])
    nock(ORIGIN)
      .get(`${BUILD_PATH}/artifact/report/index.html`)
      .reply(200, '<html>report</html>', { 'Content-Type': 'text/html;charset=UTF-8' })
    expect((await client.downloadArtifact(BUILD, 'report/index.html', sinks.open)).bytes).toBe(19)
  })

  it('follows a resource root URL redirect to another origin, without the credentials', async () => {
    const { client } = makeClient()
    const sinks = memorySinks()
    nock(ORIGIN)
      .get(`${BUILD_PATH}/artifact/app.jar`)
      .reply(302, '', { Location: 'https://res.example.net/static/abc123token/app.jar' })
    nock('https://res.example.net', { badheaders: ['authorization'] })
      .get('/static/abc123token/app.jar')
      .reply(200, 'jar bytes', { 'Content-Length': '9' })
    expect((await client.downloadArtifact(BUILD, 'app.jar', sinks.open)).bytes).toBe(9)
    expect(sinks.last()).toBe('jar bytes')
  })

  it('a sink that fails (disk full) is not retried: its error comes back as is', async () => {
    const { client } = makeClient()
    nock(ORIGIN).get(`${BUILD_PATH}/artifact/a.bin`).reply(200, 'data')
    let discarded = false
    const open = async (): Promise<ArtifactSink> => ({
      stream: new Writable({
        write(_chunk, _encoding, done) {
          done(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))
        }
      }),
      commit: async () => undefined,
      discard: async () => {
        discarded = true
      }
    })
    await expect(client.downloadArtifact(BUILD, 'a.bin', open)).rejects.toThrow(/ENOSPC/)
    expect(discarded).toBe(true)
  })

  describe('against a socket', () => {
    let server: Server | undefined
    afterEach(async () => {
      server?.closeAllConnections()
      await new Promise(resolve => server?.close(resolve))
      server = undefined
    })

    async function serve(
      handler: Parameters<typeof createServer>[1],
      options: Partial<ClientOptions> = {}
    ) {
      server = createServer(handler)
      await new Promise<void>(resolve => server?.listen(0, '127.0.0.1', resolve))
      const port = (server.address() as AddressInfo).port
      return makeClient({ url: `http://127.0.0.1:${port}/`, requestTimeoutMs: 10_000, ...options })
        .client
    }

    it('a connection reset mid-body discards the part and fetches the whole file again', async () => {
      let requests = 0
      const client = await serve((_req, res) => {
        requests++
        res.writeHead(200, { 'Content-Length': '10' })
        if (requests === 1) {
          res.write('01234')
          setImmediate(() => res.socket?.destroy())
        } else res.end('0123456789')
      })
      const sinks = memorySinks()
      const done = await client.downloadArtifact(
        { job: ['a'], number: 1, url: '' },
        'x.bin',
        sinks.open
      )
      expect(done).toEqual({ bytes: 10, attempts: 2 })
      expect(sinks.events).toEqual(['open', 'discard', 'open', 'commit'])
      expect(sinks.last()).toBe('0123456789')
      client.http.dispose()
    })

    it('the step being cancelled mid-body ends the download at once, without retrying', async () => {
      const controller = new AbortController()
      let requests = 0
      const client = await serve(
        (_req, res) => {
          requests++
          res.writeHead(200, { 'Content-Length': '1000000' })
          res.write('x'.repeat(1000))
          // ... and nothing more, with the connection open.
        },
        { signal: controller.signal }
      )
      const sinks = memorySinks()
      const download = client.downloadArtifact(
        { job: ['a'], number: 1, url: '' },
        'x.bin',
        async () => {
          const sink = await sinks.open()
          setImmediate(() => controller.abort('cancelled'))
          return sink
        }
      )
      const error = await jenkinsError(download, 'aborted')
      expect(error).toBeInstanceOf(Interrupted)
      expect(requests).toBe(1)
      expect(sinks.events).toEqual(['open', 'discard'])
      client.http.dispose()
    })

    it('a body that stops coming is cut by the stall guard and fetched again', async () => {
      let requests = 0
      const client = await serve(
        (_req, res) => {
          requests++
          res.writeHead(200, { 'Content-Length': '10' })
          if (requests === 1) res.write('01234')
          else res.end('0123456789')
        },
        { stall: { ms: 200, bytes: 1 } }
      )
      const sinks = memorySinks()
      const done = await client.downloadArtifact(
        { job: ['a'], number: 1, url: '' },
        'x.bin',
        sinks.open
      )
      expect(done).toEqual({ bytes: 10, attempts: 2 })
      expect(sinks.events).toEqual(['open', 'discard', 'open', 'commit'])
      client.http.dispose()
    })
  })
})

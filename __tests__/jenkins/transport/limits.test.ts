/**
 * The bounds of every exchange (src/jenkins/transport/limits.ts), against real sockets
 * on 127.0.0.1: servers that never answer, stall after the headers, drip,
 * keep a body half-open or reset it. Times here are bounds that prove
 * "bounded", never performance assertions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { JenkinsClient, type ClientOptions } from '../../../src/jenkins/client.js'
import { Interrupted, JenkinsError } from '../../../src/jenkins/transport/errors.js'
import { silentLogger } from '../../fixtures/recording-logger.js'

// Not helpers.ts: it loads nock, whose socket stand-in closes a paused body
// early; these tests need the real node:http sockets the action uses.

async function jenkinsError(promise: Promise<unknown>, kind: string): Promise<JenkinsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(JenkinsError)
  expect((error as JenkinsError).kind).toBe(kind)
  return error as JenkinsError
}

let server: Server | undefined
const sockets = new Set<Socket>()
const timers = new Set<NodeJS.Timeout>()

afterEach(async () => {
  for (const timer of timers) clearInterval(timer)
  timers.clear()
  for (const socket of sockets) socket.destroy()
  sockets.clear()
  await new Promise(resolve => server?.close(resolve))
  server = undefined
})

/** A loopback server; returns a client aimed at it and the requests it saw. */
async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, index: number) => void,
  options: Partial<ClientOptions> = {}
) {
  const seen: string[] = []
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    handler(req, res, seen.length)
  })
  server.on('connection', socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>(resolve => server?.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const client = new JenkinsClient({
    url: `http://127.0.0.1:${port}/`,
    logger: silentLogger,
    requestTimeoutMs: 2000,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    ...options
  })
  return { client, seen }
}

/** Writes `text` one byte every `everyMs`, never ending. */
function drip(res: ServerResponse, text: string, everyMs: number): void {
  let i = 0
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer)
    res.write(text[i % text.length] ?? ' ')
    i++
  }, everyMs)
  timers.add(timer)
}

const build = { job: ['a'], number: 1, url: '' }

async function readAll(body: NodeJS.ReadableStream, delayMs = 0): Promise<string> {
  let text = ''
  for await (const part of body) {
    text += String(part)
    if (delayMs) await new Promise(resolve => setTimeout(resolve, delayMs))
  }
  return text
}

describe('the client signal (cancel, timeout)', () => {
  it('cuts a request still waiting for its headers: Interrupted, saying what it waited for', async () => {
    const controller = new AbortController()
    const { client } = await serve(() => undefined, { signal: controller.signal })
    setTimeout(() => controller.abort('cancelled'), 100)
    const error = await client.getQueueItem(1).catch((e: unknown) => e)
    // Interrupted, not the request timeout's error after its retries: the cut ended the wait.
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Interrupted).sent).toBe(true)
    // How long it waited is what the clock says: 0.1 s, or more on a loaded machine.
    expect((error as Error).message).toMatch(/no answer to queue item 1 after \d+(\.\d)? s/)
  })

  it('sends nothing once the signal fired', async () => {
    const controller = new AbortController()
    controller.abort('cancelled')
    const { client, seen } = await serve((_req, res) => res.end('{}'), {
      signal: controller.signal
    })
    const error = await client.getJob(['a']).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Interrupted).sent).toBe(false)
    // The crumb prefetch of getJob is refused too.
    await new Promise(resolve => setTimeout(resolve, 50))
    expect(seen).toEqual([])
  })

  it('cuts a JSON body half-way (half-open connection), saying how much had come', async () => {
    const controller = new AbortController()
    const { client } = await serve(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        // The cut once the 12 bytes have reached the client, not at a time a
        // loaded machine may not have reached them by: on loopback a write
        // that completed is in the client's socket, which the next turn of
        // the event loop reads.
        res.write('{"number":1,', () =>
          setImmediate(() => setImmediate(() => controller.abort('timeout')))
        )
      },
      { signal: controller.signal }
    )
    const error = await client.getBuild(['a'], 1).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
    expect((error as Error).message).toMatch(/it had sent 12 bytes of build #1 of 'a' in/)
  })

  it('cuts a streamed console body: the stream fails with Interrupted', async () => {
    const controller = new AbortController()
    const { client } = await serve(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Text-Size': '100' })
        res.write('line 1\r\n')
      },
      { signal: controller.signal }
    )
    const chunk = await client.progressiveText(build, 0)
    setTimeout(() => controller.abort('cancelled'), 100)
    const error = await readAll(chunk.body).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
  })
})

describe('request timeout and deadline', () => {
  it('headers that never come: a timeout, retried, then the error names the host', async () => {
    const { client, seen } = await serve(() => undefined, {
      requestTimeoutMs: 150,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 }
    })
    const error = await jenkinsError(client.getQueueItem(1), 'timeout')
    expect(error.message).toMatch(
      /No answer from Jenkins at http:\/\/127\.0\.0\.1:\d+ to queue item 1 within 0\.1 s \(after 2 attempts in \d+ ms\)/
    )
    expect(seen).toHaveLength(2)
  })

  it('headers then silence on a JSON answer: the whole answer is bounded by the request timeout', async () => {
    const { client } = await serve(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        res.flushHeaders()
      },
      { requestTimeoutMs: 200, retry: { attempts: 1 } }
    )
    const error = await jenkinsError(client.getBuild(['a'], 1), 'timeout')
    expect(error.message).toMatch(/did not finish sending build #1 of 'a' within 0\.2 s \(0 bytes/)
  })

  it('a JSON answer dripped a byte at a time cannot outlast the request timeout', async () => {
    const { client } = await serve(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' })
        drip(res, '{"number":1,"building":true}', 20)
      },
      { requestTimeoutMs: 300, retry: { attempts: 1 } }
    )
    const error = await jenkinsError(client.getBuild(['a'], 1), 'timeout')
    expect(error.message).toMatch(
      /did not finish sending build #1 of 'a' within 0\.3 s \(\d+ bytes received\)/
    )
  })

  it('the deadline comes before the request timeout: nothing outlives it', async () => {
    const { client } = await serve(() => undefined, {
      requestTimeoutMs: 60_000,
      deadline: Date.now() + 200
    })
    const error = await jenkinsError(client.getQueueItem(1), 'timeout')
    expect(error.message).toMatch(/to queue item 1 before the deadline/)
  })

  it('with a signal that fires at the deadline (the step timeout), the cut is the Interrupted one: the deadline is its backstop', async () => {
    const deadline = Date.now() + 200
    const { client } = await serve(() => undefined, {
      deadline,
      signal: AbortSignal.timeout(200),
      requestTimeoutMs: 60_000
    })
    const error = await client.getQueueItem(1).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Interrupted)
  })

  it('a body that breaks off (connection reset mid-body) is retried, and the next answer read', async () => {
    const { client, seen } = await serve((_req, res, index) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      if (index === 1) {
        res.write('{"number":1,')
        setTimeout(() => res.socket?.resetAndDestroy(), 20)
        return
      }
      res.end('{"number":1,"building":false}')
    })
    expect((await client.getBuild(['a'], 1)).building).toBe(false)
    expect(seen).toHaveLength(2)
  })

  it('a JSON answer over the size cap is too large, with its size (not "malformed")', async () => {
    const { client } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '70000000' })
      res.write('[')
    })
    const error = await jenkinsError(client.listJobs([]), 'protocol')
    expect(error.message).toMatch(
      /with 70000000 bytes, more than the 64 MiB this action reads: the answer is too large/
    )
  })
})

describe('the stall guard of streamed bodies', () => {
  it('a console that stops after its first bytes fails the read as a stall', async () => {
    const { client } = await serve(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Text-Size': '100' })
        res.write('0123456789')
      },
      { stall: { ms: 200, bytes: 1024 } }
    )
    const chunk = await client.progressiveText(build, 0)
    const error = await readAll(chunk.body).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(JenkinsError)
    expect((error as JenkinsError).kind).toBe('timeout')
    expect((error as Error).message).toMatch(
      /stopped sending the console of build #1 of 'a': 10 bytes in 0\.2 s \(10 bytes in all\)/
    )
  })

  it('a console dripped a byte at a time is a stall, not a transfer to wait for', async () => {
    const { client } = await serve(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Text-Size': '100000' })
        drip(res, 'x', 10)
      },
      { stall: { ms: 300, bytes: 1024 } }
    )
    const chunk = await client.progressiveText(build, 0)
    const error = await readAll(chunk.body).catch((e: unknown) => e)
    expect((error as JenkinsError).kind).toBe('timeout')
    expect((error as Error).message).toMatch(/stopped sending the console of build #1 of 'a'/)
  })

  it('a slow reader is not a stalled server: time spent consuming is not counted', async () => {
    const text = 'y'.repeat(200 * 1024)
    const { client } = await serve(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Text-Size': String(text.length) })
        res.end(text)
      },
      { stall: { ms: 100, bytes: 1024 } }
    )
    const chunk = await client.progressiveText(build, 0)
    // Each chunk takes longer to consume than the stall window.
    const got = await readAll(chunk.body, 150)
    expect(got.length).toBe(text.length)
  }, 60_000)

  it('a half-open console body with a step deadline ends at the deadline', async () => {
    const { client } = await serve(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Text-Size': '100' })
        res.write('partial')
      },
      { deadline: Date.now() + 300 }
    )
    const chunk = await client.progressiveText(build, 0)
    const error = await readAll(chunk.body).catch((e: unknown) => e)
    expect((error as Error).message).toMatch(
      /had not finished sending the console .* at the deadline \(7 bytes/
    )
  })
})

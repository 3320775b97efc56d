/**
 * A forward proxy for the end-to-end tests (HTTP_PROXY / HTTPS_PROXY), and a
 * preload that resolves a made-up host name to 127.0.0.1: the action's HTTP
 * client never proxies loopback addresses, so a proxied run needs a name.
 */
import { writeFileSync } from 'node:fs'
import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { join } from 'node:path'

/** A loopback forward proxy: CONNECT tunnels and absolute-URI requests, every one recorded, all to 127.0.0.1. */
export async function startForwardProxy(): Promise<{
  url: string
  seen: string[]
  close(): Promise<void>
}> {
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    const target = new URL(req.url ?? '')
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: target.port,
        method: req.method,
        path: target.pathname + target.search,
        headers: req.headers
      },
      answer => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  const tunnels = new Set<net.Socket>()
  server.on('connect', (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`)
    tunnels.add(socket as net.Socket)
    socket.on('close', () => tunnels.delete(socket as net.Socket))
    const port = Number((req.url ?? '').split(':').pop())
    const upstream = net.connect(port, '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>(resolve => {
        // Tunnelled sockets left the HTTP server's hands, but it still waits for them.
        for (const socket of tunnels) socket.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** Writes a --require preload into `dir` that resolves `host` to 127.0.0.1 (no DNS query leaves the machine); returns its path. */
export function fakeHostPreload(dir: string, fakeHost: string): string {
  const path = join(dir, 'resolve-fake-host.cjs')
  writeFileSync(
    path,
    `const dns = require('node:dns')
const lookup = dns.lookup
dns.lookup = function (host, options, callback) {
  if (host !== ${JSON.stringify(fakeHost)}) return lookup.apply(this, arguments)
  const cb = typeof options === 'function' ? options : callback
  const all = typeof options === 'object' && options !== null && options.all
  process.nextTick(() => all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4))
}
`
  )
  return path
}

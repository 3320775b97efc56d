/**
 * `<build>/artifact/…`: Run.doArtifact's DirectoryBrowserSupport over the
 * archived files (core/src/main/java/hudson/model/DirectoryBrowserSupport.java
 * serveFile): a path holding `/../` is 400 (sendError, Jetty's page); a file
 * is served with Content-Length, Last-Modified, its MIME type and the
 * sandboxing CSP header; a folder gets its listing; anything else is 404.
 */
import { Readable } from 'node:stream'
import { mimeType } from '../model/artifacts.js'
import type { Exchange } from '../http/exchange.js'
import type { Build } from '../model/build.js'
import { jenkinsTime } from '../http/json.js'
import { escapeHtml, layoutPage } from '../http/pages.js'
import { notFound, sendLayout } from './respond.js'

/** DirectoryBrowserSupport.DEFAULT_CSP_VALUE. */
const CSP = "sandbox allow-same-origin; default-src 'none'; img-src 'self'; style-src 'self';"

export function artifact(ex: Exchange, build: Build, tail: string[]): void {
  const below = ex.rawPath.slice(ex.rawPath.indexOf('/artifact') + '/artifact'.length)
  let decoded: string
  try {
    decoded = decodeURIComponent(below)
  } catch {
    decoded = below
  }
  if (`${decoded.replace(/\\/g, '/')}/`.includes('/../')) return ex.jetty(400, 'Bad Request')
  const path = tail.join('/')
  const file = build.artifacts.find(f => f.path === path)
  if (file) {
    ex.res.writeHead(200, {
      'Content-Type': mimeType(path),
      'Content-Length': String(file.size),
      'Last-Modified': new Date(
        jenkinsTime(ex.ctx.json, build.finishedAt ?? build.startedAt)
      ).toUTCString(),
      'Content-Security-Policy': CSP
    })
    if (ex.method === 'HEAD') return void ex.res.end()
    Readable.from(file.read(0, file.size)).pipe(ex.res)
    return
  }
  const prefix = path === '' ? '' : `${path}/`
  const inside = build.artifacts.filter(f => f.path.startsWith(prefix))
  if (inside.length === 0) return notFound(ex)
  const items = inside.map(f => `<li>${escapeHtml(f.path.slice(prefix.length))}</li>`)
  sendLayout(ex, 200, layoutPage('Artifacts', `<ul>${items.join('')}</ul>`))
}

/**
 * `<build>/input/…`: pipeline-input-step's InputAction (urlName "input"),
 * present once an input step ran. Its index lists what waits; each input is
 * bound by its id (InputAction.getDynamic), with `proceedEmpty` and `abort`
 * (InputStepExecution: @RequirePOST, Job/Build, HttpResponses.ok()).
 */
import type { Exchange } from '../http/exchange.js'
import type { Build } from '../model/build.js'
import { escapeHtml, layoutPage } from '../http/pages.js'
import { can, deny, notFound, requirePost, sendLayout } from './respond.js'

export function input(ex: Exchange, build: Build, tail: string[]): void {
  if (build.job.type !== 'pipeline' || build.inputs.length === 0) return notFound(ex)
  const [id, action, ...rest] = tail
  if (id === undefined) {
    const waiting = build.inputs.filter(i => !i.settled)
    const items = waiting.map(
      i => `<li>${escapeHtml(i.message)} (<code>${escapeHtml(i.id)}</code>)</li>`
    )
    return sendLayout(
      ex,
      200,
      layoutPage('Paused for Input', `<h1>Paused for Input</h1><ul>${items.join('')}</ul>`)
    )
  }
  const pending = build.inputs.find(i => i.id === id && !i.settled)
  if (!pending || rest.length > 0) return notFound(ex)
  if (action !== 'proceedEmpty' && action !== 'abort') return notFound(ex)
  if (!requirePost(ex)) return
  if (!can(ex, 'build')) return deny(ex, 'build')
  const user = ex.identity.anonymous ? null : ex.identity.name
  pending.answer(action === 'proceedEmpty' ? 'proceed' : 'abort', user)
  ex.res.writeHead(200, { 'Content-Length': '0' })
  ex.res.end()
}

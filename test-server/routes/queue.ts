/** The queue: `queue/api/json`, `queue/item/<id>/…` and `queue/cancelItem` (jenkins-api.md 4). */
import type { Exchange } from '../http/exchange.js'
import { queueItemJson } from '../http/json.js'
import type { RequestKind } from '../types.js'
import { can, notFound, Oops, requirePost, sendApiJson } from './respond.js'

/** The request log's kind of `queue/<rest>`. */
export function queueKind(rest: string[]): RequestKind {
  return rest[0] === 'cancelItem' ? 'cancel' : 'queue'
}

export function queue(ex: Exchange, rest: string[]): void {
  const model = ex.ctx.model
  if (rest[0] === 'cancelItem' && rest.length === 1) return cancelItem(ex)
  if (rest[0] === 'api' && rest[1] === 'json' && rest.length === 2) {
    return sendApiJson(ex, depth => ({
      _class: 'hudson.model.Queue',
      discoverableItems: [],
      items: model.queue
        .filter(i => i.state !== 'left')
        .map(i => queueItemJson(ex.ctx.json, i, 1, Math.max(depth, 1)))
    }))
  }
  if (rest[0] !== 'item' || rest[1] === undefined || !/^\d+$/.test(rest[1])) return notFound(ex)
  const id = Number(rest[1])
  const found = model.queueItem(id)
  if (!found) return notFound(ex)
  ex.entry.job = found.job.fullName
  const tail = rest.slice(2)
  if (tail.length === 0) {
    ex.res.writeHead(200, { 'Content-Type': 'text/plain;charset=UTF-8' })
    ex.res.end(
      `Queue item exists. For details check, for example, ${ex.ctx.contextPath}/queue/item/${id}/api/json?tree=cancelled,executable[url]`
    )
    return
  }
  if (tail[0] === 'api' && tail[1] === 'json' && tail.length === 2) {
    return sendApiJson(ex, depth => queueItemJson(ex.ctx.json, found, 0, depth))
  }
  notFound(ex)
}

function cancelItem(ex: Exchange): void {
  if (!requirePost(ex)) return
  const idText = ex.params.get('id') ?? ''
  if (!/^\d+$/.test(idText)) throw new Oops(404, `Provided id ${idText} not found`)
  const item = ex.ctx.model.queueItem(Number(idText))
  if (!item) throw new Oops(404, `Provided id ${idText} not found`)
  ex.entry.job = item.job.fullName
  if (!can(ex, 'cancel')) {
    throw new Oops(422, `${ex.identity.name} does not have permission to cancel`)
  }
  if (!ex.ctx.model.cancel(item)) throw new Oops(500, `Could not cancel run for id ${idText}`)
  ex.res.writeHead(204)
  ex.res.end()
}

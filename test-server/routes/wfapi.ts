/**
 * `<build>/wfapi/…`: the Pipeline Stage View plugin's REST API on a
 * WorkflowRun (RunAPI, a TransientActionFactory of WorkflowRun only, so a
 * freestyle build, or a Jenkins without the plugin, answers 404). `describe`
 * and the index (RunAPI.doIndex = describe) serve RunExt; served as Jackson
 * writes it, `application/json; charset=UTF-8` (JsonResponse).
 */
import type { Exchange } from '../http/exchange.js'
import { itemPath } from '../http/json.js'
import { toJson } from '../http/json-writer.js'
import type { Build } from '../model/build.js'
import { describeJson } from '../model/pipeline.js'
import { notFound } from './respond.js'

export function wfapi(ex: Exchange, build: Build, tail: string[]): void {
  if (!ex.ctx.stageView || build.job.type !== 'pipeline') return notFound(ex)
  if (tail.length > 1 || (tail.length === 1 && tail[0] !== 'describe')) return notFound(ex)
  const base = `${ex.ctx.contextPath}/${itemPath(build.job)}${build.number}/`
  const body = describeJson(build, build, base, build.artifacts.length > 0, ex.ctx.json.clockSkewMs)
  ex.res.writeHead(200, { 'Content-Type': 'application/json; charset=UTF-8' })
  ex.res.end(toJson(body))
}

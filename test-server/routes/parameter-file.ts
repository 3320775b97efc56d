/**
 * `<build>/parameters/parameter/NAME/…`: a file parameter's content, where
 * Jenkins serves it. ParametersAction's URL name is `parameters`, and
 * `getParameter(name)` binds `parameter/NAME` to the value (ParametersAction,
 * jenkins-2.568.2).
 *
 * - Core's FileParameterValue stores the upload as `fileParameters/NAME`
 *   under the build (its `location` is the parameter's name) and
 *   `doDynamic` serves that folder, so the file is at `…/NAME/NAME`, the link
 *   its value.jelly draws. `doDynamic` casts the build to AbstractBuild: on a
 *   Pipeline run that is a ClassCastException, an error page (500).
 * - The file-parameters plugin's values serve it at `…/NAME/download`
 *   (AbstractFileParameterValue.doDownload).
 */
import { createReadStream } from 'node:fs'
import type { Build } from '../model/build.js'
import type { Exchange } from '../http/exchange.js'
import { notFound, Oops } from './respond.js'

export function parameterFile(ex: Exchange, build: Build, tail: string[]): void {
  const [kind, name, file, ...rest] = tail
  if (kind !== 'parameter' || name === undefined || rest.length > 0) return notFound(ex)
  const value = build.parameterValues.find(p => p.name === name)
  if (!value?.file) return notFound(ex)
  const wanted = value.type === 'file' ? name : 'download'
  if (file !== wanted) return notFound(ex)
  if (value.type === 'file' && build.job.type === 'pipeline') {
    throw new Oops(
      500,
      'java.lang.ClassCastException: class org.jenkinsci.plugins.workflow.job.WorkflowRun cannot be cast to class hudson.model.AbstractBuild'
    )
  }
  ex.res.writeHead(200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(value.file.size)
  })
  if (ex.method === 'HEAD') return void ex.res.end()
  createReadStream(value.file.path).pipe(ex.res)
}

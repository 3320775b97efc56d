/**
 * The child processes of the benchmark: which Node runs them, their peak
 * memory, and the guarantee that none outlives the bench.
 */
import { execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../scripts/action-runner.js'

export const NODE24 = join(ROOT, 'tools', 'node24', 'node_modules', '.bin', 'node')

export interface Runtime {
  path: string
  version: string
  /** Set when the children could not run under Node 24: printed in the report. */
  note?: string
}

/** Node 24 (what action.yml declares); the machine's Node, loudly, when it is not installed. */
function runtime(): Runtime {
  if (existsSync(NODE24)) {
    return {
      path: NODE24,
      version: execFileSync(NODE24, ['--version'], { encoding: 'utf8' }).trim()
    }
  }
  if (process.version.startsWith('v24.'))
    return { path: process.execPath, version: process.version }
  return {
    path: process.execPath,
    version: process.version,
    note: `Node 24 is not installed (npm ci --prefix tools/node24): both sides ran under the machine's ${process.version}.`
  }
}

/** The Node both sides run under, resolved once. */
export const NODE = runtime()

const children = new Set<ChildProcess>()

/** Tracks a child until `forget`, so that it is killed if the bench exits first. */
export function adopt(child: ChildProcess): void {
  children.add(child)
}

export function forget(child: ChildProcess): void {
  children.delete(child)
}

export function killChildren(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  children.clear()
}

/** Kills every child on exit, Ctrl-C or SIGTERM: a stray run would skew the next bench. */
export function killChildrenOnExit(): void {
  process.on('exit', killChildren)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      killChildren()
      process.exit(130)
    })
  }
}

/** Samples VmHWM (the kernel's peak-RSS mark) of a child every 50 ms. */
export function watchPeakRss(pid: number | undefined): () => number {
  let peakKb = 0
  const sample = (): void => {
    try {
      const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]))
    } catch {
      // Exited: VmHWM is monotonic, so the last sample stands.
    }
  }
  sample()
  const timer = setInterval(sample, 50)
  return () => {
    clearInterval(timer)
    return peakKb * 1024
  }
}

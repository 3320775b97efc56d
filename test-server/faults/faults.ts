import { mulberry32 } from '../model/prng.js'
import type { FaultSpec, RequestKind } from '../types.js'

/** What to do to one request before Jenkins sees it (a flaky proxy in front of it). */
export interface FaultDecision {
  latencyMs: number
  /** 'lose': let Jenkins act, then replace its answer with `status` or, without one, a dropped connection. */
  action: 'none' | 'drop' | 'error' | 'lose'
  status?: number
  retryAfterSec?: number
}

const NONE: FaultDecision = { latencyMs: 0, action: 'none' }

/**
 * Draws faults from a seeded PRNG. Every request the spec aims at consumes
 * the same number of draws, so a seed and a request sequence give the same
 * faults every run.
 */
export class FaultInjector {
  private readonly random: () => number

  constructor(readonly spec: FaultSpec) {
    this.random = mulberry32(spec.seed ?? 1)
  }

  applies(kind: RequestKind): boolean {
    if (this.spec.kinds && !this.spec.kinds.includes(kind)) return false
    if (this.spec.excludeKinds?.includes(kind)) return false
    return true
  }

  decide(kind: RequestKind): FaultDecision {
    if (!this.applies(kind)) return NONE
    const latencyDraw = this.random()
    const actionDraw = this.random()
    const statusDraw = this.random()
    const latency = this.spec.latencyMs ?? 0
    const latencyMs = Array.isArray(latency)
      ? Math.round(latency[0] + (latency[1] - latency[0]) * latencyDraw)
      : latency
    const dropRate = this.spec.dropRate ?? 0
    const errorRate = this.spec.errorRate ?? 0
    if (actionDraw < dropRate) return { latencyMs, action: 'drop' }
    const lostRate = this.spec.lostAnswerRate ?? 0
    if (actionDraw >= dropRate + errorRate && actionDraw < dropRate + errorRate + lostRate) {
      const forms = this.spec.lostAs?.length ? this.spec.lostAs : ['drop' as const, 502]
      const form = forms[Math.floor(statusDraw * forms.length)] ?? 'drop'
      return form === 'drop'
        ? { latencyMs, action: 'lose' }
        : { latencyMs, action: 'lose', status: form }
    }
    if (actionDraw < dropRate + errorRate) {
      const statuses = this.spec.errorStatuses?.length ? this.spec.errorStatuses : [502, 503]
      const status = statuses[Math.floor(statusDraw * statuses.length)] ?? 503
      const decision: FaultDecision = { latencyMs, action: 'error', status }
      if (status === 503 && this.spec.retryAfterSec !== undefined) {
        decision.retryAfterSec = this.spec.retryAfterSec
      }
      return decision
    }
    return { latencyMs, action: 'none' }
  }
}

/** Types of scripts/local-action.mjs, for its tests. */
export declare const LOCAL_ACTION: string
export declare const MIN_NODE_MAJOR: number
export declare const DOWNLOAD: string

export interface PlanOptions {
  envFile: string
  nodeVersion: string
  node24Bin: string
  env: Record<string, string | undefined>
  platform: NodeJS.Platform
}

export type Plan =
  | { error: string; command?: undefined; args?: undefined; env?: undefined; node?: undefined }
  | {
      error?: undefined
      command: string
      args: string[]
      env: Record<string, string | undefined>
      node: string
    }

export declare function plan(options: PlanOptions): Plan

export declare function exitStatus(
  result: { status: number | null; signal: NodeJS.Signals | null; error?: Error },
  signals: Partial<Record<NodeJS.Signals, number>>
): number

export declare const LAUNCHER_ERROR: RegExp

export declare function withoutLauncherError(write: (text: string) => void): {
  push(chunk: string): void
  end(): void
}

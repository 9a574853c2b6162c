/** What the metrics endpoint keeps in the sandbox state (see flow.ts for how it moves). */

export interface FlowRates {
  fetchedPerMinute: number;
  sentPerMinute: number;
  errorsPerMinute: number;
}

/** A pipe's line: `rates` as set by the flow route (absent = the steady flow), totals at `at`. */
export interface PipeFlowRow {
  rates?: FlowRates;
  fetched: number;
  sent: number;
  errors: number;
  /** Sandbox clock, ms. */
  at: number;
}

/** What the metrics endpoint keeps in the sandbox state (absent in older state files). */
export interface MetricsState {
  flows: Record<string, PipeFlowRow>;
  /** Services whose scrape fails in part: they answer their service-info metric alone. */
  partialServices: string[];
}

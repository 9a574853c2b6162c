/**
 * One bench figure of `bench/results.json` → `figures`. Each area's figures live in
 * bench/figures/<area>.ts, export `measure(): Promise<Figure[]>`, and run standalone with
 * `npx tsx bench/figures/<area>.ts` (prints the figures as JSON). A figure is measured, never
 * asserted: `met` says whether this run reached the goal.
 */
export interface Figure {
  name: string;
  value: number;
  /** The goal as written in the issue, e.g. "<= 1.05" or "= 1". */
  goal: string;
  met: boolean;
  /** The command that reproduces this figure. */
  command: string;
  note?: string;
}

export type MeasureFigures = () => Promise<Figure[]>;

/**
 * From parsed samples to what a watchdog asks: per service, its status and whether the answer
 * observed its pipes; per pipe (`clickpipe_id`), its name, source, state and every counter and
 * gauge of API-FACTS. Names and labels are matched verbatim; metrics it does not know are ignored;
 * a NaN or infinite value reads as "no reading".
 */
import * as z from 'zod/mini';
import {
  CDC_METRICS,
  METRIC_LABELS as L,
  PIPE_EVENTS_PER_TABLE_METRIC,
  PIPE_INFO_METRIC,
  PIPE_METRICS,
  SERVICE_INFO_METRIC,
  type PipeReading,
  type ServiceReading,
} from '../schemas/metrics';
import { parsePrometheusText, PrometheusParseError, type PrometheusSample } from './prometheus';

type Kind = 'counter' | 'gauge';
type Readings<F extends string> = Partial<Record<F, number>>;

/** Metric name -> the reading's field and how series of it combine. */
function fieldsByMetric<F extends string>(
  table: Readonly<Record<F, { metric: string; kind: Kind }>>,
) {
  const entries = Object.entries(table) as [F, { metric: string; kind: Kind }][];
  return new Map(entries.map(([field, { metric, kind }]) => [metric, { field, kind }]));
}
const PIPE_FIELDS = fieldsByMetric(PIPE_METRICS);
const CDC_FIELDS = fieldsByMetric(CDC_METRICS);

/** The reading of `serviceId` from its own endpoint's samples (those of that service, or unlabelled). */
export function readServiceMetrics(
  samples: readonly PrometheusSample[],
  serviceId: string,
): ServiceReading {
  const own = samples.filter((s) => (s.labels[L.service] ?? serviceId) === serviceId);
  return readService(serviceId, own);
}

/** Every service of the organization-wide answer, in the order each first appears. */
export function readOrganizationMetrics(samples: readonly PrometheusSample[]): ServiceReading[] {
  const byService = new Map<string, PrometheusSample[]>();
  for (const sample of samples) {
    const serviceId = sample.labels[L.service];
    if (!serviceId) continue;
    const group = byService.get(serviceId) ?? [];
    group.push(sample);
    byService.set(serviceId, group);
  }
  return [...byService].map(([serviceId, group]) => readService(serviceId, group));
}

/**
 * The 200 body of a metrics call, read as text: parsed and read into the service's reading, or a
 * zod issue naming the line that is not in the format (the HTTP core reports it as a typed error).
 */
export function metricsBody<T>(read: (samples: readonly PrometheusSample[]) => T) {
  return z.pipe(
    z.string(),
    z.transform((text, ctx): T => {
      try {
        return read(parsePrometheusText(text).samples);
      } catch (error) {
        if (!(error instanceof PrometheusParseError)) throw error;
        ctx.issues.push({ code: 'custom', message: error.message, input: text });
        return z.NEVER;
      }
    }),
  );
}

function readService(serviceId: string, samples: readonly PrometheusSample[]): ServiceReading {
  const info = samples.find((s) => s.name === SERVICE_INFO_METRIC)?.labels ?? {};
  const pipes = new Map<string, PipeReading>();
  const cdc: Readings<keyof typeof CDC_METRICS> = {};
  for (const sample of samples) {
    const pipeId = sample.labels[L.pipeId];
    if (pipeId) {
      const pipe = pipes.get(pipeId) ?? { pipeId };
      pipes.set(pipeId, pipe);
      addPipeSample(pipe, sample);
    } else {
      const known = CDC_FIELDS.get(sample.name);
      if (known) combine(cdc, known.field, known.kind, sample.value);
    }
  }
  const status = info[L.clusterStatus];
  const scrape = info[L.scrape];
  const onlyInfo = samples.every((s) => s.name === SERVICE_INFO_METRIC);
  return withoutUndefined({
    serviceId,
    serviceName: info[L.serviceName] ?? samples[0]?.labels[L.serviceName],
    organizationId: info[L.organization] ?? samples[0]?.labels[L.organization],
    clusterStatus: status,
    scrape,
    version: info[L.version],
    observed: !onlyInfo && status !== 'idle' && scrape !== 'partial',
    pipes: [...pipes.values()].map(withoutUndefined),
    cdc: withoutUndefined(cdc),
  });
}

function addPipeSample(pipe: PipeReading, sample: PrometheusSample): void {
  const labels = sample.labels;
  pipe.name ??= labels[L.pipeName];
  pipe.source ??= labels[L.pipeSource];
  if (sample.name === PIPE_INFO_METRIC) {
    pipe.state = labels[L.pipeState] ?? labels[L.pipeStateOld] ?? pipe.state;
    return;
  }
  if (sample.name === PIPE_EVENTS_PER_TABLE_METRIC) {
    if (!Number.isFinite(sample.value)) return;
    pipe.eventsPerTable ??= [];
    pipe.eventsPerTable.push({
      table: labels[L.destinationTable] ?? '',
      eventType: labels[L.eventType] ?? '',
      events: sample.value,
    });
    return;
  }
  const known = PIPE_FIELDS.get(sample.name);
  if (known) combine(pipe, known.field, known.kind, sample.value);
}

/** Series of one pipe (or service) add up for a counter; the largest gauge wins. */
function combine<F extends string>(into: Readings<F>, field: F, kind: Kind, value: number): void {
  if (!Number.isFinite(value)) return;
  const current = into[field];
  if (current === undefined) into[field] = value;
  else into[field] = kind === 'counter' ? current + value : Math.max(current, value);
}

/** The object without its undefined fields, so a reading holds only what the answer carried. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

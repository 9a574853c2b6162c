/** Alert fields as cloudops declares them, read back from the service, and compared. */
import { alertLinks, wireSource, type Alert, type CreateAlertBody } from '../schemas';
import { scheduleOf, type TileAlertDeclaration } from './desired';
import { stripMarker } from './marker';

/** The declarable fields, normalized so "absent", null and "" compare equal. */
export interface AlertFields {
  name: string;
  message: string;
  threshold: number | undefined;
  thresholdMax: number | undefined;
  interval: string | undefined;
  thresholdType: string | undefined;
  /** `tile` or `saved_search` (the spec's `search` compares as `saved_search`). */
  source: string | undefined;
  channelType: string | undefined;
  webhookId: string | undefined;
  /** An email channel's recipients, joined by `,` (the order the service keeps). */
  emailRecipients: string | undefined;
  /** Absent, null and 1 all fire on the first window (a service may answer 1 for "unset"). */
  numConsecutiveWindows: number | undefined;
  /** 0 is "no offset": a PUT with `scheduleStartAt: null` leaves 0 where nothing was set. */
  scheduleOffsetMinutes: number | undefined;
  /** The instant, so `...Z` and `...+00:00` spellings of one time compare equal. */
  scheduleStartAt: string | undefined;
  dashboardId: string | undefined;
  tileId: string | undefined;
  savedSearchId: string | undefined;
}

const opt = <T>(v: T | null | undefined): T | undefined => (v === null || v === '' ? undefined : v);

type LinkField = 'source' | 'dashboardId' | 'tileId' | 'savedSearchId';
/** What an alert says, apart from where it points. */
type Said = Omit<AlertFields, LinkField>;

/**
 * The one reading of what an alert says, the same for a declaration, a body and an alert read
 * back (a new declarable field is read here).
 */
function said(a: TileAlertDeclaration | CreateAlertBody | Alert): Said {
  return {
    name: a.name ?? '',
    message: stripMarker(a.message),
    threshold: opt(a.threshold),
    thresholdMax: opt(a.thresholdMax),
    interval: opt(a.interval),
    thresholdType: opt(a.thresholdType),
    channelType: opt(a.channel?.type),
    webhookId: opt(a.channel?.webhookId),
    emailRecipients: a.channel?.emailRecipients?.length
      ? a.channel.emailRecipients.join(',')
      : undefined,
    numConsecutiveWindows:
      a.numConsecutiveWindows && a.numConsecutiveWindows > 1 ? a.numConsecutiveWindows : undefined,
    scheduleOffsetMinutes: a.scheduleOffsetMinutes ? a.scheduleOffsetMinutes : undefined,
    scheduleStartAt: instant(a.scheduleStartAt),
  };
}

function instant(at: string | null | undefined): string | undefined {
  if (!at) return undefined;
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? at : new Date(ms).toISOString();
}

/** The channel a body carries: a webhook or email recipients, as the fields say. */
function channelOf(f: Pick<Said, 'channelType' | 'webhookId' | 'emailRecipients'>) {
  return {
    type: f.channelType!,
    ...(f.webhookId ? { webhookId: f.webhookId } : {}),
    ...(f.emailRecipients ? { emailRecipients: f.emailRecipients.split(',') } : {}),
  };
}

function withLinks(
  what: Said,
  source: string | undefined,
  links: Partial<Record<Exclude<LinkField, 'source'>, string | null>>,
): AlertFields {
  const { channelType, webhookId, emailRecipients, ...rest } = what;
  return {
    ...rest,
    source,
    channelType,
    webhookId,
    emailRecipients,
    dashboardId: source === 'tile' ? opt(links.dashboardId) : undefined,
    tileId: source === 'tile' ? opt(links.tileId) : undefined,
    savedSearchId: source === 'saved_search' ? opt(links.savedSearchId) : undefined,
  };
}

export function fieldsOfBody(body: CreateAlertBody): AlertFields {
  return withLinks(said(body), wireSource(body.source), body);
}

/** What the service holds, whichever names its links use (current or spec). */
export function fieldsOfAlert(alert: Alert): AlertFields {
  const source = opt(alert.source) === undefined ? undefined : wireSource(alert.source!);
  return withLinks(said(alert), source, alertLinks(alert));
}

/** Names of the fields that differ (empty: nothing to write). */
export function diffFields(a: AlertFields, b: AlertFields): string[] {
  return (Object.keys(a) as (keyof AlertFields)[]).filter((k) => a[k] !== b[k]);
}

/** Rebuilds a full create/update body from an alert read back (to copy a newer duplicate's content). */
export function bodyOfAlert(alert: Alert): CreateAlertBody | undefined {
  const f = fieldsOfAlert(alert);
  if (
    f.threshold === undefined ||
    f.interval === undefined ||
    f.thresholdType === undefined ||
    (f.source !== 'tile' && f.source !== 'saved_search') ||
    f.channelType === undefined
  ) {
    return undefined;
  }
  return {
    name: f.name,
    message: f.message,
    threshold: f.threshold,
    ...(f.thresholdMax !== undefined ? { thresholdMax: f.thresholdMax } : {}),
    interval: f.interval as CreateAlertBody['interval'],
    thresholdType: f.thresholdType as CreateAlertBody['thresholdType'],
    source: f.source,
    channel: channelOf(f),
    ...scheduleOf(f),
    ...(f.dashboardId ? { dashboardId: f.dashboardId } : {}),
    ...(f.tileId ? { tileId: f.tileId } : {}),
    ...(f.savedSearchId ? { savedSearchId: f.savedSearchId } : {}),
  };
}

/**
 * The fields a person declares on a tile alert, as a plan shows them old -> new (links left
 * out: a tile alert is matched by its tile, so they are equal). The marker is not shown.
 */
export function alertShape(a: TileAlertDeclaration | Alert): Record<string, unknown> {
  const { channelType, webhookId, emailRecipients, ...rest } = said(a);
  return {
    ...rest,
    channel:
      channelType === undefined
        ? undefined
        : channelOf({ channelType, webhookId, emailRecipients }),
  };
}

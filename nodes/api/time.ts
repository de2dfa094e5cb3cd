import type { IDataObject } from 'n8n-workflow';

/**
 * The API's timestamps and the list bounds sent back to it. ISO 8601 allows a date-time without a
 * zone designator (`2024-05-01T10:00:00`): it is then the API's own wall time, whose zone the API
 * does not say. Such a time is read here as if it were UTC, so nothing depends on the time zone of
 * the n8n host, and bounds are written back without a zone too, so the API compares them with its
 * own timestamps in its own wall time.
 */

const ZONE_DESIGNATOR = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

function normalised(value: string): string {
	return value.trim().replace(' ', 'T');
}

/** Whether a date-time is written without a zone designator; null when it is not a date-time. */
function isZoneless(value: string): boolean | null {
	const text = normalised(value);
	if (!/T\d{2}:\d{2}/.test(text)) return null;
	return !ZONE_DESIGNATOR.test(text);
}

export function timeMs(envelope: IDataObject, field: 'created_at' | 'updated_at'): number | null {
	const value = envelope[field];
	if (typeof value !== 'string') return null;
	const text = normalised(value);
	const ms = Date.parse(isZoneless(text) ? `${text}Z` : text);
	return Number.isNaN(ms) ? null : ms;
}

export function createdAtMs(envelope: IDataObject): number | null {
	return timeMs(envelope, 'created_at');
}

/** Whether the envelope's created_at has no zone designator; null when it has no date-time. */
export function zonelessCreatedAt(envelope: IDataObject): boolean | null {
	return typeof envelope.created_at === 'string' ? isZoneless(envelope.created_at) : null;
}

/** A list bound (start_date, end_date) in the API's own notation. */
export function apiTime(ms: number, zoneless: boolean): string {
	const iso = new Date(ms).toISOString();
	return zoneless ? iso.slice(0, -1) : iso;
}

function zoneOffsetMs(utcMs: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(utcMs));
	const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value ?? 0);
	const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
	return wall - Math.floor(utcMs / 1000) * 1000;
}

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An n8n date picker value (wall time in the workflow's time zone, no offset), an ISO string with
 * an offset, or a date object, as an ISO 8601 UTC timestamp. Undefined when it is not a date.
 */
export function toIsoTimestamp(value: unknown, timeZone: string): string | undefined {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
	if (value && typeof value === 'object' && typeof (value as { toISO?: unknown }).toISO === 'function') {
		return toIsoTimestamp((value as { toISO: () => string }).toISO(), timeZone);
	}
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (HAS_ZONE.test(text)) {
		const parsed = Date.parse(text);
		return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString();
	}
	const match = WALL_TIME.exec(text);
	if (!match) return undefined;
	const [, year, month, day, hour = '0', minute = '0', second = '0', milli = '0'] = match;
	const guess = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second, +milli.padEnd(3, '0'));
	if (Number.isNaN(guess)) return undefined;
	let zone = timeZone;
	try {
		zoneOffsetMs(guess, zone);
	} catch {
		zone = 'UTC';
	}
	const firstOffset = zoneOffsetMs(guess, zone);
	let utc = guess - firstOffset;
	const secondOffset = zoneOffsetMs(utc, zone);
	if (secondOffset !== firstOffset) utc = guess - secondOffset;
	return new Date(utc).toISOString();
}

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

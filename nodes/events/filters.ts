import type { TransactionResource } from '../api/values';

/** The Resources, Statuses and Channels filters of both triggers. */

export interface EventFilters {
	resources: string[];
	statuses: string[];
	channels: string[];
}

/** Empty lists mean "any". */
export function passesFilters(
	filters: EventFilters,
	item: { resource: TransactionResource | null; status: string; channel: string | null },
): boolean {
	if (filters.resources.length > 0 && (!item.resource || !filters.resources.includes(item.resource))) return false;
	if (filters.statuses.length > 0 && !filters.statuses.includes(item.status)) return false;
	if (filters.channels.length > 0 && (!item.channel || !filters.channels.includes(item.channel))) return false;
	return true;
}

export function asStringList(value: unknown): string[] {
	if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string' && entry !== '');
	if (typeof value === 'string' && value !== '') return [value];
	return [];
}

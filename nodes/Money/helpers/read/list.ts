import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { LIST_PAGE_SIZE_MAX, listRoute, statusesOf, type TransactionResource } from '../../../api/values';
import { statusOfEnvelope } from '../../../events/envelope';
import { moneyApiPages, windowPages } from '../../../transport/listWindow';
import type { CallSettings } from '../../../transport/request';
import { toIsoTimestamp } from '../../../api/time';
import { fieldError } from '../validation';

/** Listing charges or payouts: the query from the parameters, and the pages read up to a limit. */

/** The parameter paths of Created After / Before: in the Filters of Get Many, top-level in Reconcile. */
export interface PeriodParameters {
	start: string;
	end: string;
}

/**
 * `start_date` / `end_date` from the Created After / Before parameters, in the workflow's time zone
 * when they carry none; empty values are left out.
 */
export function periodQuery(
	this: IExecuteFunctions,
	startDate: unknown,
	endDate: unknown,
	itemIndex: number,
	parameters: PeriodParameters,
): { start_date?: string; end_date?: string } {
	const qs: { start_date?: string; end_date?: string } = {};
	const timeZone = this.getTimezone();
	for (const [value, field, parameter, label] of [
		[startDate, 'start_date', parameters.start, 'Created After'],
		[endDate, 'end_date', parameters.end, 'Created Before'],
	] as const) {
		if (value === undefined || value === null || value === '') continue;
		const iso = toIsoTimestamp(value, timeZone);
		if (!iso) {
			throw fieldError(this.getNode(), { parameter, label, field, rule: 'must be a date (ISO 8601)' }, itemIndex);
		}
		qs[field] = iso;
	}
	if (qs.start_date && qs.end_date && qs.start_date > qs.end_date) {
		const rule = 'must not be before Created After';
		throw fieldError(this.getNode(), { parameter: parameters.end, label: 'Created Before', field: 'end_date', rule }, itemIndex);
	}
	return qs;
}

/** The list query of the Filters collection: status (checked against the resource's statuses), channel, period. */
export function listQuery(this: IExecuteFunctions, resource: TransactionResource, itemIndex: number): IDataObject {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const qs: IDataObject = {};
	const statuses: readonly string[] = statusesOf(resource);
	if (filters.status) {
		if (!statuses.includes(String(filters.status))) {
			const rule = `must be one of ${statuses.join(', ')} for ${resource}s`;
			throw fieldError(this.getNode(), { parameter: 'filters.status', label: 'Status', field: 'status', rule }, itemIndex);
		}
		qs.status = filters.status;
	}
	if (filters.channel) qs.channel = filters.channel;
	Object.assign(qs, periodQuery.call(this, filters.startDate, filters.endDate, itemIndex, { start: 'filters.startDate', end: 'filters.endDate' }));
	return qs;
}

/** Return All, or the Limit parameter checked (1 to the API's page size). */
export function listLimit(this: IExecuteFunctions, itemIndex: number): number | undefined {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : Number(this.getNodeParameter('limit', itemIndex, 50));
	if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= LIST_PAGE_SIZE_MAX)) {
		const rule = `must be a whole number from 1 to ${LIST_PAGE_SIZE_MAX}`;
		throw fieldError(this.getNode(), { parameter: 'limit', label: 'Limit', field: 'limit', rule }, itemIndex);
	}
	return limit;
}

/**
 * The first `limit` envelopes of the list: one request, nothing to shift. Or, with Return All, every
 * envelope of the window its first page sees, each once (transport/listWindow.ts): the status, when
 * filtered, is checked here on what is read, so a transaction whose status changes meanwhile moves
 * no page (docs/decisions.md#d11).
 */
export async function readList(
	this: IExecuteFunctions,
	resource: TransactionResource,
	qs: IDataObject,
	limit: number | undefined,
	settings: CallSettings & { itemIndex: number },
): Promise<IDataObject[]> {
	const options = { itemIndex: settings.itemIndex, retry: settings.retry, timeoutMs: settings.timeoutMs };
	if (limit !== undefined) {
		const first = await moneyApiPages.call(this, listRoute(resource), qs, { ...options, pageSize: limit }).next();
		return (first.value?.items ?? []).slice(0, limit);
	}
	const { status, ...windowQuery } = qs;
	const seen = new Set<string>();
	const envelopes: IDataObject[] = [];
	const window = { start: null, end: null, page: 1 };
	for await (const page of windowPages.call(this, listRoute(resource), windowQuery, window, options)) {
		for (const envelope of page.items) {
			if (typeof envelope.reference === 'string') {
				if (seen.has(envelope.reference)) continue;
				seen.add(envelope.reference);
			}
			if (status === undefined || statusOfEnvelope(envelope) === status) envelopes.push(envelope);
		}
	}
	return envelopes;
}

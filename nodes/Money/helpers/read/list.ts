import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { LIST_PAGE_SIZE_MAX, listRoute, statusesOf, type TransactionResource } from '../../../api/values';
import { statusOfEnvelope } from '../../../events/envelope';
import { toIsoTimestamp } from '../../../api/time';
import { readWindow, type WindowRead } from '../../../transport/listRead';
import { type CallSettings, moneyApiRequest } from '../../../transport/request';
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
 * transaction of the window, each once (transport/listRead.ts): its query holds no status, which is
 * checked here on what is read, so a transaction whose status changes meanwhile moves nothing
 * (docs/decisions.md#d11).
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
		const answer = await moneyApiRequest.call(this, 'GET', listRoute(resource), { ...options, qs: { ...qs, page: 1, limit } });
		return (answer.data as IDataObject[]).slice(0, limit);
	}
	const { status, ...windowQuery } = qs;
	const { envelopes } = await readPeriod.call(this, resource, windowQuery, settings);
	return status === undefined ? envelopes : envelopes.filter((envelope) => statusOfEnvelope(envelope) === status);
}

/** Every transaction of a list query without status (its start_date and end_date the window's), each once, and the API's count of them. */
export async function readPeriod(
	this: IExecuteFunctions,
	resource: TransactionResource,
	qs: IDataObject,
	settings: CallSettings & { itemIndex: number },
): Promise<WindowRead> {
	const { start_date: start, end_date: end, ...query } = qs;
	const bounds = { start: typeof start === 'string' ? start : null, end: typeof end === 'string' ? end : null };
	const words = { transactions: `${resource}s`, window: bounds.start || bounds.end ? 'in the period' : 'in the list' };
	const options = { itemIndex: settings.itemIndex, retry: settings.retry, timeoutMs: settings.timeoutMs };
	return await readWindow.call(this, listRoute(resource), query, bounds, words, options);
}

import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { itemRoute, listRoute } from '../../api/routes';
import { LIST_PAGE_SIZE_MAX, REVERSED_STATUS, type TransactionResource } from '../../api/values';
import { channelOfEnvelope, envelopeOfReadResponse, statusOfEnvelope } from '../../events/envelope';
import { passesFilters } from '../../events/filters';
import type { MoneyEventItem } from '../../events/item';
import { moneyApiPages, moneyApiRequest } from '../../transport/request';
import { byOccurrence, createdAtMs, eventItem, observe } from './observe';
import { listQuery, type PollSettings } from './settings';
import { parseWatchKey, type PollState, unwatch, watchKey } from './state';

/** The API reads of a poll: first poll, new transactions, payout reversals, watched pending ones, the manual sample. */

const SAMPLE_PAGE_SIZE = 20;

export function wantsReversals(settings: PollSettings): boolean {
	return (
		settings.resources.includes('payout') &&
		(settings.filters.statuses.length === 0 || settings.filters.statuses.includes(REVERSED_STATUS))
	);
}

/** Reversals of payouts created before the window: the newest page of REVERSED payouts. */
export async function recentReversals(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	listed: Set<string>,
): Promise<MoneyEventItem[]> {
	const response = await moneyApiRequest.call(context, 'GET', listRoute('payout'), {
		qs: { ...listQuery(settings.filters), status: REVERSED_STATUS, page: 1, limit: LIST_PAGE_SIZE_MAX },
	});
	const items: MoneyEventItem[] = [];
	for (const envelope of Array.isArray(response.data) ? (response.data as IDataObject[]) : []) {
		if (typeof envelope.reference === 'string') listed.add(watchKey('payout', envelope.reference));
		const item = observe(state, settings, 'payout', envelope);
		if (item) items.push(item);
	}
	return items;
}

/**
 * First poll for a resource: records the state of what already exists (the newest pages, back to
 * the overlap window) without emitting, and sets the cursor and the history floor there.
 */
export async function initialiseResource(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
): Promise<void> {
	let newest = 0;
	let pagesRead = 0;
	let windowCovered = false;
	for await (const page of moneyApiPages.call(context, listRoute(resource), listQuery(settings.filters), {
		pageSize: LIST_PAGE_SIZE_MAX,
	})) {
		pagesRead++;
		for (const envelope of page.items) {
			const created = createdAtMs(envelope) ?? 0;
			newest = Math.max(newest, created);
			if (created < newest - settings.overlapMs) windowCovered = true;
			observe(state, settings, resource, envelope);
		}
		if (windowCovered || pagesRead >= settings.maxPages) break;
	}
	state.cursors = { ...state.cursors, [resource]: newest };
	state.floors = { ...state.floors, [resource]: newest };
	if (resource === 'payout' && wantsReversals(settings)) await recentReversals(context, state, settings, new Set());
}

export async function pollNewTransactions(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: TransactionResource,
	listed: Set<string>,
): Promise<MoneyEventItem[]> {
	const cursor = state.cursors[resource];
	const qs = listQuery(settings.filters);
	if (cursor > 0) qs.start_date = new Date(Math.max(0, cursor - settings.overlapMs)).toISOString();
	const items: MoneyEventItem[] = [];
	let newest = cursor;
	let pagesRead = 0;
	for await (const page of moneyApiPages.call(context, listRoute(resource), qs, { pageSize: LIST_PAGE_SIZE_MAX })) {
		pagesRead++;
		for (const envelope of page.items) {
			newest = Math.max(newest, createdAtMs(envelope) ?? 0);
			if (typeof envelope.reference === 'string') listed.add(watchKey(resource, envelope.reference));
			const item = observe(state, settings, resource, envelope, true);
			if (item) items.push(item);
		}
		if (pagesRead >= settings.maxPages && page.page < page.pages) {
			context.logger.warn('Money Poll Trigger read its page limit; older transactions of this window were skipped', {
				resource,
				pages: page.pages,
				maxPages: settings.maxPages,
			});
			break;
		}
	}
	state.cursors = { ...state.cursors, [resource]: newest };
	return items;
}

export async function recheckWatched(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	listed: Set<string>,
): Promise<MoneyEventItem[]> {
	const items: MoneyEventItem[] = [];
	const due = state.watch.filter((key) => !listed.has(key)).slice(0, settings.maxChecks);
	for (const key of due) {
		const parsed = parseWatchKey(key);
		if (!parsed || !settings.resources.includes(parsed.resource)) {
			unwatch(state, key);
			continue;
		}
		let envelope: IDataObject | null;
		try {
			envelope = envelopeOfReadResponse(
				await moneyApiRequest.call(context, 'GET', itemRoute(parsed.resource, parsed.reference)),
			);
		} catch (error) {
			if (error instanceof NodeApiError && error.httpCode === '404') {
				unwatch(state, key);
				continue;
			}
			throw new NodeApiError(context.getNode(), error as JsonObject);
		}
		if (!envelope) continue;
		state.watch = [...state.watch.filter((known) => known !== key), key];
		const item = observe(state, settings, parsed.resource, envelope);
		if (item) items.push(item);
	}
	return items;
}

export async function sample(context: IPollFunctions, settings: PollSettings): Promise<MoneyEventItem[]> {
	const found: MoneyEventItem[] = [];
	for (const resource of settings.resources) {
		const response = await moneyApiRequest.call(context, 'GET', listRoute(resource), {
			qs: { ...listQuery(settings.filters), page: 1, limit: SAMPLE_PAGE_SIZE },
		});
		const envelopes = Array.isArray(response.data) ? (response.data as IDataObject[]) : [];
		const match = envelopes.find((envelope) => {
			const status = statusOfEnvelope(envelope);
			return (
				status !== null &&
				passesFilters(settings.filters, { resource, status, channel: channelOfEnvelope(envelope) })
			);
		});
		if (match) found.push(eventItem(resource, match, statusOfEnvelope(match) as string));
	}
	return found.sort(byOccurrence);
}

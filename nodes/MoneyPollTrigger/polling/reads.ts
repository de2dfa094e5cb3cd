import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { itemRoute, LIST_PAGE_SIZE_MAX, listRoute, statusesOf, type TransactionResource } from '../../api/values';
import { channelOfEnvelope, envelopeOfReadResponse, statusOfEnvelope } from '../../events/envelope';
import { passesFilters } from '../../events/filters';
import type { MoneyEventItem } from '../../events/item';
import { moneyApiRequest } from '../../transport/request';
import { createdAtMs } from '../../api/time';
import { eventItem, observe } from './observe';
import { listQuery, type PollSettings } from './settings';
import { forgetNotFound, noteNotFound, parseWatchKey, type PollState, unwatch } from './state';

/** The API reads of a poll besides new transactions (listing.ts), reversals (reversals.ts) and the first poll (initialise.ts): watched pending ones, the manual test. */

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
		// A transaction the API listed stays watched while its read answers 404 (a lagging read), for
		// up to a day: it goes to the back of the list, as after any read.
		state.watch = [...state.watch.filter((known) => known !== key), key];
		try {
			envelope = envelopeOfReadResponse(
				await moneyApiRequest.call(context, 'GET', itemRoute(parsed.resource, parsed.reference)),
			);
		} catch (error) {
			if (!(error instanceof NodeApiError && error.httpCode === '404')) throw new NodeApiError(context.getNode(), error as JsonObject);
			if (noteNotFound(state, key)) {
				unwatch(state, key);
				context.logger.warn('Money Poll Trigger no longer watches a transaction whose Get has answered 404 for 24 hours', { node: context.getNode().name, transaction: key });
			}
			continue;
		}
		forgetNotFound(state, key);
		if (!envelope) continue;
		const item = observe(state, settings, parsed.resource, envelope);
		if (item) items.push(item);
	}
	return items;
}

/** One page of a resource's list: its transactions and how many pages the list has. */
async function listPage(context: IPollFunctions, resource: TransactionResource, qs: IDataObject, page: number): Promise<{ items: IDataObject[]; pages: number }> {
	const answer = await moneyApiRequest.call(context, 'GET', listRoute(resource), { qs: { ...qs, page, limit: LIST_PAGE_SIZE_MAX } });
	const pages = (answer.pagination as IDataObject).pages;
	return { items: answer.data as IDataObject[], pages: typeof pages === 'number' ? pages : page };
}

/**
 * The manual test (the editor's Fetch Test Event): the newest transaction that passes the filters,
 * whether or not a poll emitted it already, as n8n's own polling triggers answer a manual run.
 * Polling state is not read or changed. Each selected status is listed with the API's status
 * filter, so a rare status is found even under many newer transactions.
 */
export async function newestEvent(context: IPollFunctions, settings: PollSettings): Promise<MoneyEventItem | null> {
	let newest: { resource: TransactionResource; envelope: IDataObject; status: string; created: number } | null = null;
	for (const resource of settings.resources) {
		const wanted = settings.filters.statuses.filter((status) => (statusesOf(resource) as readonly string[]).includes(status));
		if (settings.filters.statuses.length > 0 && wanted.length === 0) continue;
		for (const status of wanted.length > 0 ? wanted : [undefined]) {
			const qs: IDataObject = { ...listQuery(settings.filters), ...(status ? { status } : {}) };
			for (let page = 1; page <= settings.maxPages; page++) {
				const { items, pages } = await listPage(context, resource, qs, page);
				const match = items.find((envelope) => {
					const found = statusOfEnvelope(envelope);
					return found !== null && passesFilters(settings.filters, { resource, status: found, channel: channelOfEnvelope(envelope) });
				});
				if (match) {
					const created = createdAtMs(match) ?? 0;
					if (!newest || created > newest.created) {
						newest = { resource, envelope: match, status: statusOfEnvelope(match) as string, created };
					}
					break;
				}
				if (items.length === 0 || page >= pages) break;
			}
		}
	}
	return newest ? eventItem(newest.resource, newest.envelope, newest.status) : null;
}

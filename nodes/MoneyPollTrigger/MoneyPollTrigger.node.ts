import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import {
	asStringList,
	buildEventItem,
	channelOfEnvelope,
	envelopeOfReadResponse,
	isFinalStatus,
	judgeTransition,
	lastKnownStatus,
	listRoute,
	passesFilters,
	readRoute,
	rememberStatus,
	statusOfEnvelope,
	type EventFilters,
	type MoneyEventItem,
	type MoneyResource,
} from '../shared/events';
import { moneyApiPages, moneyApiRequest } from '../shared/transport';
import { channelsFilter, statusesFilter } from '../MoneyTrigger/descriptions';

const PAGE_SIZE = 100;
const MAX_WATCHED = 500;
const MAX_REMEMBERED_STATUSES = 2000;
const SAMPLE_PAGE_SIZE = 20;

interface PollState extends IDataObject {
	cursors: Record<string, number>;
	floors: Record<string, number>;
	watch: string[];
	statuses: Record<string, string>;
	referenceOrder: string[];
}

interface PollSettings {
	resources: MoneyResource[];
	filters: EventFilters;
	overlapMs: number;
	maxPages: number;
	maxChecks: number;
}

function watchKey(resource: MoneyResource, reference: string): string {
	return `${resource}:${reference}`;
}

function parseWatchKey(key: string): { resource: MoneyResource; reference: string } | null {
	const separator = key.indexOf(':');
	const resource = key.slice(0, separator);
	if (resource !== 'charge' && resource !== 'payout') return null;
	return { resource, reference: key.slice(separator + 1) };
}

function createdAtMs(envelope: IDataObject): number | null {
	if (typeof envelope.created_at !== 'string') return null;
	const ms = Date.parse(envelope.created_at);
	return Number.isNaN(ms) ? null : ms;
}

function loadState(staticData: IDataObject): PollState {
	const copy = JSON.parse(JSON.stringify(staticData)) as IDataObject;
	return {
		...copy,
		cursors: copy.cursors && typeof copy.cursors === 'object' ? (copy.cursors as Record<string, number>) : {},
		floors: copy.floors && typeof copy.floors === 'object' ? (copy.floors as Record<string, number>) : {},
		watch: Array.isArray(copy.watch) ? (copy.watch as string[]) : [],
		statuses: copy.statuses && typeof copy.statuses === 'object' ? (copy.statuses as Record<string, string>) : {},
		referenceOrder: Array.isArray(copy.referenceOrder) ? (copy.referenceOrder as string[]) : [],
	};
}

function saveState(staticData: IDataObject, state: PollState): void {
	staticData.cursors = state.cursors;
	staticData.floors = state.floors;
	staticData.watch = state.watch;
	staticData.statuses = state.statuses;
	staticData.referenceOrder = state.referenceOrder;
}

function watch(state: PollState, key: string): void {
	if (state.watch.includes(key)) return;
	const next = [...state.watch, key];
	state.watch = next.length > MAX_WATCHED ? next.slice(next.length - MAX_WATCHED) : next;
}

function unwatch(state: PollState, key: string): void {
	if (state.watch.includes(key)) state.watch = state.watch.filter((known) => known !== key);
}

function listQuery(filters: EventFilters): IDataObject {
	return filters.channels.length === 1 ? { channel: filters.channels[0] } : {};
}

function settingsOf(context: IPollFunctions): PollSettings {
	const resource = context.getNodeParameter('resource', 'both') as string;
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const resources: MoneyResource[] =
		resource === 'charge' ? ['charge'] : resource === 'payout' ? ['payout'] : ['charge', 'payout'];
	const number = (value: unknown, fallback: number, min: number) =>
		typeof value === 'number' && Number.isFinite(value) && value >= min ? Math.floor(value) : fallback;
	return {
		resources,
		filters: {
			resources,
			statuses: asStringList(context.getNodeParameter('statuses', [])),
			channels: asStringList(context.getNodeParameter('channels', [])),
		},
		overlapMs: number(options.overlapSeconds, 120, 0) * 1000,
		maxPages: number(options.maxPages, 10, 1),
		maxChecks: number(options.maxChecksPerPoll, 50, 0),
	};
}

function eventItem(resource: MoneyResource, envelope: IDataObject, status: string): MoneyEventItem {
	const reference = typeof envelope.reference === 'string' ? envelope.reference : 'unknown';
	return buildEventItem({
		id: `poll_${reference}_${status.toLowerCase()}`,
		source: 'poll',
		resource,
		envelope,
		confirmed: true,
	});
}

/**
 * Records what a list or Get says about one transaction and returns the item to emit, if any:
 * a status not yet seen for this reference that moves forward (docs/decisions.md#d2) and passes the filters.
 * Pending transactions are kept on the watch list so a later poll re-reads them. With
 * `skipHistory`, a transaction first seen already final that predates the trigger is recorded
 * but not emitted.
 */
function observe(
	state: PollState,
	settings: PollSettings,
	resource: MoneyResource,
	envelope: IDataObject,
	skipHistory = false,
): MoneyEventItem | null {
	const reference = typeof envelope.reference === 'string' ? envelope.reference : null;
	const status = statusOfEnvelope(envelope);
	if (!reference || !status) return null;
	const previous = lastKnownStatus(state, resource, reference);
	const verdict = judgeTransition(previous, status);
	if (verdict === 'stale') return null;
	rememberStatus(state, resource, reference, verdict === 'duplicate' ? (previous as string) : status, MAX_REMEMBERED_STATUSES);
	const key = watchKey(resource, reference);
	if (isFinalStatus(status)) unwatch(state, key);
	else watch(state, key);
	if (verdict === 'duplicate') return null;
	if (skipHistory && verdict === 'new' && isFinalStatus(status) && predatesTrigger(state, resource, envelope)) return null;
	const passes = passesFilters(settings.filters, { resource, status, channel: channelOfEnvelope(envelope) });
	return passes ? eventItem(resource, envelope, status) : null;
}

/** Created at or before the newest transaction of the first poll: it existed before the trigger. */
function predatesTrigger(state: PollState, resource: MoneyResource, envelope: IDataObject): boolean {
	const floor = state.floors[resource];
	const created = createdAtMs(envelope);
	return typeof floor === 'number' && created !== null && created <= floor;
}

function wantsReversals(settings: PollSettings): boolean {
	return (
		settings.resources.includes('payout') &&
		(settings.filters.statuses.length === 0 || settings.filters.statuses.includes('REVERSED'))
	);
}

/** Reversals of payouts created before the window: the newest page of REVERSED payouts. */
async function recentReversals(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	listed: Set<string>,
): Promise<MoneyEventItem[]> {
	const response = await moneyApiRequest.call(context, 'GET', listRoute('payout'), {
		qs: { ...listQuery(settings.filters), status: 'REVERSED', page: 1, limit: PAGE_SIZE },
	});
	const items: MoneyEventItem[] = [];
	for (const envelope of Array.isArray(response.data) ? (response.data as IDataObject[]) : []) {
		if (typeof envelope.reference === 'string') listed.add(watchKey('payout', envelope.reference));
		const item = observe(state, settings, 'payout', envelope);
		if (item) items.push(item);
	}
	return items;
}

function byOccurrence(a: MoneyEventItem, b: MoneyEventItem): number {
	const left = Date.parse(a.occurred_at ?? a.created_at ?? '') || 0;
	const right = Date.parse(b.occurred_at ?? b.created_at ?? '') || 0;
	return left - right;
}

/**
 * First poll for a resource: records the state of what already exists (the newest pages, back to
 * the overlap window) without emitting, and sets the cursor and the history floor there.
 */
async function initialiseResource(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: MoneyResource,
): Promise<void> {
	let newest = 0;
	let pagesRead = 0;
	let windowCovered = false;
	for await (const page of moneyApiPages.call(context, listRoute(resource), listQuery(settings.filters), {
		pageSize: PAGE_SIZE,
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

async function pollNewTransactions(
	context: IPollFunctions,
	state: PollState,
	settings: PollSettings,
	resource: MoneyResource,
	listed: Set<string>,
): Promise<MoneyEventItem[]> {
	const cursor = state.cursors[resource];
	const qs = listQuery(settings.filters);
	if (cursor > 0) qs.start_date = new Date(Math.max(0, cursor - settings.overlapMs)).toISOString();
	const items: MoneyEventItem[] = [];
	let newest = cursor;
	let pagesRead = 0;
	for await (const page of moneyApiPages.call(context, listRoute(resource), qs, { pageSize: PAGE_SIZE })) {
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

async function recheckWatched(
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
				await moneyApiRequest.call(context, 'GET', readRoute(parsed.resource, parsed.reference)),
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

async function sample(context: IPollFunctions, settings: PollSettings): Promise<MoneyEventItem[]> {
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

export class MoneyPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Money Poll Trigger',
		name: 'moneyPollTrigger',
		icon: { light: 'file:money.svg', dark: 'file:money.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["resource"]}}',
		description:
			'Starts the workflow when a Money API charge or payout reaches a chosen status, by polling (for n8n instances webhooks cannot reach)',
		defaults: { name: 'Money Poll Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'moneyApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Charge', value: 'charge' },
					{ name: 'Charge and Payout', value: 'both' },
					{ name: 'Payout', value: 'payout' },
				],
				default: 'both',
			},
			statusesFilter,
			channelsFilter,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Max Pages per Poll',
						name: 'maxPages',
						type: 'number',
						typeOptions: { minValue: 1 },
						default: 10,
						description: 'Pages of 100 transactions read per resource and poll',
					},
					{
						displayName: 'Max Re-Checks per Poll',
						name: 'maxChecksPerPoll',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 50,
						description:
							'Pending transactions re-read with Get per poll, to catch those that became final (the least recently checked first)',
					},
					{
						displayName: 'Overlap (Seconds)',
						name: 'overlapSeconds',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 120,
						description:
							'Each poll re-reads transactions created this long before the newest one already seen, so late-listed transactions are not missed; repeats are not emitted twice',
					},
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const settings = settingsOf(this);

		if (this.getMode() === 'manual') {
			const found = await sample(this, settings);
			return found.length > 0 ? [this.helpers.returnJsonArray(found)] : null;
		}

		const staticData = this.getWorkflowStaticData('node');
		const state = loadState(staticData);
		const emitted: MoneyEventItem[] = [];
		const listed = new Set<string>();

		for (const resource of settings.resources) {
			if (typeof state.cursors[resource] !== 'number') {
				await initialiseResource(this, state, settings, resource);
				continue;
			}
			emitted.push(...(await pollNewTransactions(this, state, settings, resource, listed)));
			if (resource === 'payout' && wantsReversals(settings)) {
				emitted.push(...(await recentReversals(this, state, settings, listed)));
			}
		}
		emitted.push(...(await recheckWatched(this, state, settings, listed)));

		saveState(staticData, state);
		if (emitted.length === 0) return null;
		return [this.helpers.returnJsonArray(emitted.sort(byOccurrence))];
	}
}
